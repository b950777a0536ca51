import { mkdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { MAX_WRITE_CHARS } from '../limits.js';
import { BerthError } from '../../protocol/errors/index.js';
import type { LocalWorkspace } from '../../workspace/types.js';
import type { Tool, ToolContext, ToolResult } from '../types.js';
import { expectedSha256, requiredString } from './args.js';
import { mapWorkspaceError } from '../../workspace/fs-errors.js';
import { fileExists, parentNotDirectory, replaceFile } from './replace-file.js';
import { seedToolDefinition } from './seed-tools.js';
import { sha256Hex } from '../../protocol/tools/sha256.js';
import { confineToolPath, localWorkspaceOf, regularFileStats, staleHash } from './workspace-files.js';

/**
 * `workspace_write` (docs/gateway.md): create or replace a UTF-8 file. `expectedSha256`
 * null means "create" and refuses an existing file (`file_exists`); otherwise
 * it must be the current revision (`stale_hash`). Missing parent directories
 * are created inside the workspace.
 */
export function workspaceWriteTool(): Tool {
  return {
    ...seedToolDefinition('workspace_write', { policy: 'write', category: 'workspace' }),
    run: (args, ctx) => writeWorkspaceFile(args, ctx),
  };
}

async function writeWorkspaceFile(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
  const ws = localWorkspaceOf(ctx);
  const path = requiredString(args, 'path');
  const content = requiredString(args, 'content');
  const expected = expectedSha256(args);
  if (content.length > MAX_WRITE_CHARS) {
    throw new BerthError('file_too_large', `content is longer than ${MAX_WRITE_CHARS} characters`, {
      limit: MAX_WRITE_CHARS,
    });
  }
  const target = await confineToolPath(ws, path, { allowMissing: true });
  if (target.exists) {
    await regularFileStats(target.abs, target.rel);
    if (expected === null) throw fileExists(target.rel);
  } else if (expected !== null) {
    throw staleHash(target.rel);
  }
  // A parent that already existed was proven inside by confine, like an existing file's path.
  const abs = target.parentExists ? target.abs : await makeParentDirectories(ws, target.abs, target.rel);
  const bytes = Buffer.from(content, 'utf8');
  await replaceFile({ root: ws.root, abs, rel: target.rel, content: bytes, expectedSha256: expected });
  return {
    value: { path: target.rel, sha256: sha256Hex(bytes), size: bytes.length, created: !target.exists },
  };
}

/**
 * Creates the missing parents, then confines the parent again: the directories
 * now exist, so realpath proves nothing swapped a link into the way meanwhile.
 * Returns the absolute path to write.
 */
async function makeParentDirectories(ws: LocalWorkspace, abs: string, rel: string): Promise<string> {
  try {
    await mkdir(dirname(abs), { recursive: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR') {
      throw parentNotDirectory(rel);
    }
    throw mapWorkspaceError(err, rel);
  }
  const parentRel = rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '.';
  const parent = await confineToolPath(ws, parentRel);
  return join(parent.abs, basename(abs));
}
