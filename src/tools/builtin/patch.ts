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
 * `workspace_patch` (docs/gateway.md): replace exactly one occurrence of `oldText`.
 *
 * `expectedSha256: null` is refused: a patch edits text the agent has seen, so
 * the file must exist and have been read (the seed: "Supply the SHA-256 from
 * workspace_read"); creating a file is `workspace_write`'s job. Occurrences
 * are counted overlapping ("aa" occurs twice in "aaa"), so "exactly one" means
 * there is no other place the edit could have meant.
 */
export function workspacePatchTool(): Tool {
  return {
    ...seedToolDefinition('workspace_patch', { policy: 'write', category: 'workspace' }),
    run: (args, ctx) => patchWorkspaceFile(args, ctx),
  };
}

async function patchWorkspaceFile(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
  const ws = localWorkspaceOf(ctx);
  const path = requiredString(args, 'path');
  const oldText = requiredString(args, 'oldText');
  const newText = requiredString(args, 'newText');
  const expected = expectedSha256(args);
  if (expected === null) {
    throw invalid('workspace_patch edits an existing file: pass its sha256', 'read the file with workspace_read first; create files with workspace_write');
  }
  if (oldText.length === 0) throw invalid('`oldText` must not be empty');
  const { abs, rel, bytes: before } = await readWholeToolFile(ws, path, MAX_PATCH_FILE_BYTES, ctx.signal);
  if (sha256Hex(before) !== expected) throw staleHash(rel);
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
  await replaceFile({ root: ws.root, abs, rel, content: after, expectedSha256: expected });
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
