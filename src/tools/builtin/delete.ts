import { randomUUID } from 'node:crypto';
import { lstat, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { MAX_HASHED_FILE_BYTES } from '../limits.js';
import { BerthError } from '../../protocol/errors/index.js';
import type { Tool, ToolContext, ToolResult } from '../types.js';
import { expectedSha256, invalid, requiredString } from './args.js';
import { mapWorkspaceError } from '../../workspace/fs-errors.js';
import { seedToolDefinition } from './seed-tools.js';
import { confineToolPath, localWorkspaceOf, regularFileStats, sha256File, staleHash } from './workspace-files.js';

/**
 * `workspace_delete` (docs/gateway.md): delete one regular file whose SHA-256 still
 * matches. Directories and symbolic links are refused (`not_regular_file`):
 * removing a link by its path is not what "delete this file" means, and
 * directories would need a recursive rule the seed does not give.
 */
export function workspaceDeleteTool(): Tool {
  return {
    ...seedToolDefinition('workspace_delete', { policy: 'critical', category: 'workspace' }),
    run: (args, ctx) => deleteWorkspaceFile(args, ctx),
  };
}

async function deleteWorkspaceFile(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
  const ws = localWorkspaceOf(ctx);
  const path = requiredString(args, 'path');
  const expected = expectedSha256(args);
  if (expected === null) {
    throw invalid('workspace_delete needs the sha256 of the file it deletes', 'read the file with workspace_read first');
  }
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
  let actual: string;
  try {
    actual = await sha256File(aside, rel, MAX_HASHED_FILE_BYTES, ctx.signal);
  } catch (err) {
    await rename(aside, abs).catch(() => undefined);
    throw err;
  }
  if (actual !== expected) {
    // Put it back. A file created at the same name in this instant would be replaced — the one window left.
    await rename(aside, abs).catch(() => undefined);
    throw staleHash(rel);
  }
  await unlink(aside).catch((err: unknown) => {
    throw mapWorkspaceError(err, rel);
  });
  return { value: { path: rel, deleted: true, size: st.size } };
}
