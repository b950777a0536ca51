import { randomUUID } from 'node:crypto';
import { lstat, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { MAX_HASHED_FILE_BYTES } from '../limits.js';
import { BerthError } from '../../protocol/errors/index.js';
import type { Tool, ToolContext, ToolResult } from '../types.js';
import { expectedSha256, requiredString } from './args.js';
import { mapWorkspaceError } from '../../workspace/fs-errors.js';
import { seedToolDefinition } from './seed-tools.js';
import { confineToolPath, localWorkspaceOf, regularFileStats, sha256File, staleHash } from './workspace-files.js';

/**
 * What `expectedSha256: null` means for a delete (contract/gateway-v1.json allows it
 * and its text does not say): no revision check — the regular file is deleted
 * whatever it holds. Directories, links and missing files are refused as
 * always, and it stays a `critical` call under the usual permission rules.
 * See docs/workspace-tools.md.
 */
export const DELETE_NULL_NOTE =
  'Berth: expectedSha256 null deletes the regular file whatever its content, without comparing revisions.';

/**
 * `workspace_delete` (docs/gateway.md): delete one regular file whose SHA-256 still
 * matches. Directories and symbolic links are refused (`not_regular_file`):
 * removing a link by its path is not what "delete this file" means, and
 * directories would need a recursive rule the seed does not give.
 */
export function workspaceDeleteTool(): Tool {
  return {
    ...seedToolDefinition('workspace_delete', { policy: 'critical', category: 'workspace', note: DELETE_NULL_NOTE }),
    run: (args, ctx) => deleteWorkspaceFile(args, ctx),
  };
}

async function deleteWorkspaceFile(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
  const ws = localWorkspaceOf(ctx);
  const path = requiredString(args, 'path');
  const expected = expectedSha256(args);
  const { abs, rel } = await confineToolPath(ws, path);
  // confine() followed any link; look at the name itself to refuse deleting through one.
  const named = await lstat(resolve(ws.root, path)).catch((err: unknown) => {
    throw mapWorkspaceError(err, rel);
  });
  if (named.isSymbolicLink()) {
    throw new BerthError('not_regular_file', `${path} is a symbolic link; workspace_delete removes regular files only`);
  }
  const st = await regularFileStats(abs, rel);

  // Move the file aside first, then hash what was moved: the bytes checked are
  // exactly the bytes deleted, whatever a concurrent writer does to the name.
  const aside = join(dirname(abs), `.${basename(abs)}.berth-${randomUUID()}.deleting`);
  try {
    await rename(abs, aside);
  } catch (err) {
    throw mapWorkspaceError(err, rel);
  }
  if (expected !== null) await assertStillExpected(aside, abs, rel, expected, ctx.signal);
  await unlink(aside).catch((err: unknown) => {
    throw mapWorkspaceError(err, rel);
  });
  return { value: { path: rel, deleted: true, size: st.size } };
}

/** Hashes the file moved aside; when it is not the expected revision, puts it back and refuses. */
async function assertStillExpected(aside: string, abs: string, rel: string, expected: string, signal: AbortSignal): Promise<void> {
  let actual: string;
  try {
    actual = await sha256File(aside, rel, MAX_HASHED_FILE_BYTES, signal);
  } catch (err) {
    await rename(aside, abs).catch(() => undefined);
    throw err;
  }
  if (actual !== expected) {
    // Put it back. A file created at the same name in this instant would be replaced — the one window left.
    await rename(aside, abs).catch(() => undefined);
    throw staleHash(rel);
  }
}
