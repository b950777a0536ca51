import { MAX_PATCH_FILE_BYTES } from '../limits.js';
import { BerthError } from '../../protocol/errors/index.js';
import type { Tool, ToolContext, ToolResult } from '../types.js';
import { expectedSha256, invalid, requiredString } from './args.js';
import { replaceFile } from './replace-file.js';
import { seedToolDefinition } from './seed-tools.js';
import { utf8Decode } from './utf8.js';
import { sha256Hex } from '../../protocol/tools/sha256.js';
import { localWorkspaceOf, readWholeToolFile, staleHash } from './workspace-files.js';

/**
 * What `expectedSha256: null` means for a patch (contract/gateway-v1.json allows it
 * and its text does not say): no revision check. The file must still exist
 * and `oldText` still occur in it exactly once; the patch is applied to the
 * file as it is when the call runs. It stays a `write` call under the usual
 * permission rules. See docs/workspace-tools.md.
 */
export const PATCH_NULL_NOTE =
  'Berth: expectedSha256 null patches the file as it is now, without comparing revisions; ' +
  'oldText must still occur exactly once, and a change made while the call runs still refuses it.';

/**
 * `workspace_patch` (docs/gateway.md): replace exactly one occurrence of `oldText`.
 * Occurrences are counted overlapping ("aa" occurs twice in "aaa"), so
 * "exactly one" means there is no other place the edit could have meant.
 * A patch never creates a file: that is `workspace_write`'s job.
 */
export function workspacePatchTool(): Tool {
  return {
    ...seedToolDefinition('workspace_patch', { policy: 'write', category: 'workspace', note: PATCH_NULL_NOTE }),
    run: (args, ctx) => patchWorkspaceFile(args, ctx),
  };
}

async function patchWorkspaceFile(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
  const ws = localWorkspaceOf(ctx);
  const path = requiredString(args, 'path');
  const oldText = requiredString(args, 'oldText');
  const newText = requiredString(args, 'newText');
  const expected = expectedSha256(args);
  if (oldText.length === 0) throw invalid('`oldText` must not be empty');
  const { abs, rel, bytes: before } = await readWholeToolFile(ws, path, MAX_PATCH_FILE_BYTES, ctx.signal);
  const current = sha256Hex(before);
  if (expected !== null && current !== expected) throw staleHash(rel);
  const text = utf8Decode(before);
  if (text === null) throw new BerthError('binary_file', `binary file: ${rel}`, { path: rel });

  const at = text.indexOf(oldText);
  if (at < 0) {
    throw new BerthError('text_not_found', `oldText does not occur in ${rel}`, { path: rel }, 'copy oldText exactly from workspace_read, whitespace included');
  }
  const occurrences = countOccurrences(text, oldText, at);
  if (occurrences > 1) {
    throw new BerthError('ambiguous_text_match', `oldText occurs ${occurrences} times in ${rel}`, { path: rel, occurrences }, 'include more surrounding text so it occurs once');
  }
  const after = Buffer.from(text.slice(0, at) + newText + text.slice(at + oldText.length), 'utf8');
  if (after.length > MAX_PATCH_FILE_BYTES) {
    throw new BerthError('file_too_large', `the patched ${rel} would exceed ${MAX_PATCH_FILE_BYTES} bytes`, { limit: MAX_PATCH_FILE_BYTES });
  }
  // With or without a hash from the caller, the file is replaced only if it is still the text patched here.
  await replaceFile({ root: ws.root, abs, rel, content: after, expectedSha256: current });
  return {
    value: {
      path: rel,
      sha256: sha256Hex(after),
      size: after.length,
      diff: {
        startLine: newlines(text.slice(0, at)) + 1,
        removedLines: touchedLines(oldText),
        addedLines: touchedLines(newText),
        sizeChange: after.length - before.length,
      },
    },
  };
}

/** Overlapping occurrences of `needle`, counting from the first one at `first`. */
function countOccurrences(text: string, needle: string, first: number): number {
  let count = 0;
  for (let i = first; i >= 0; i = text.indexOf(needle, i + 1)) count++;
  return count;
}

function newlines(s: string): number {
  let n = 0;
  for (let i = s.indexOf('\n'); i >= 0; i = s.indexOf('\n', i + 1)) n++;
  return n;
}

/** Lines a replaced text spans: "" 0, "a" 1, "a\n" 1, "a\nb" 2. */
function touchedLines(s: string): number {
  if (s === '') return 0;
  return newlines(s) + (s.endsWith('\n') ? 0 : 1);
}
