import { lstat, readdir, stat } from 'node:fs/promises';
import type { Dirent } from 'node:fs';
import { join } from 'node:path';
import { MAX_LIST_ENTRIES } from '../../workspace/limits.js';
import { BerthError } from '../../protocol/errors/index.js';
import { loadIgnoreRules } from '../../workspace/ignore.js';
import { kindOf, type EntryKind } from '../../workspace/stat.js';
import type { Tool, ToolContext, ToolResult } from '../types.js';
import { optionalInteger, optionalString } from './args.js';
import { mapWorkspaceError } from '../../workspace/fs-errors.js';
import { seedToolDefinition } from './seed-tools.js';
import { confineToolPath, localWorkspaceOf } from './workspace-files.js';

/** docs/gateway.md `workspace_list.offset` maximum. */
const MAX_LIST_OFFSET = 100_000;

interface ListEntry {
  readonly name: string;
  readonly kind: EntryKind;
  readonly size?: number;
  readonly ignored: boolean;
}

/**
 * `workspace_list` (docs/gateway.md): one directory, sorted by name so that `offset`
 * pages are stable, MAX_LIST_ENTRIES per page. Ignored entries (`.gitignore`,
 * `.berthignore`) are listed and marked `ignored` rather than hidden: an agent
 * should know `node_modules` is there and that it is not project source. The
 * `.git` directory is never listed. Symlinks are reported as `symlink`, not
 * followed; `size` is given for regular files.
 */
export function workspaceListTool(): Tool {
  return {
    ...seedToolDefinition('workspace_list', { policy: 'read', category: 'workspace' }),
    run: (args, ctx) => listDirectory(args, ctx),
  };
}

async function listDirectory(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
  const ws = localWorkspaceOf(ctx);
  const { abs, rel } = await confineToolPath(ws, optionalString(args, 'path') ?? '.');
  const offset = optionalInteger(args, 'offset', 0, MAX_LIST_OFFSET) ?? 0;
  const st = await stat(abs).catch((err: unknown) => {
    throw mapWorkspaceError(err, rel);
  });
  if (!st.isDirectory()) {
    throw new BerthError('not_regular_file', `${rel} is not a directory`, {}, 'use workspace_read for files');
  }
  const dirents = await readdir(abs, { withFileTypes: true }).catch((err: unknown) => {
    throw mapWorkspaceError(err, rel);
  });
  const all = dirents.filter((d) => d.name !== '.git').sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const page = all.slice(offset, offset + MAX_LIST_ENTRIES);
  const isIgnored = await ignoreTester(ws.root, rel);
  ctx.signal.throwIfAborted();
  const entries = await Promise.all(page.map((d) => describe(abs, d, isIgnored)));
  const next = offset + page.length;
  const hasMore = next < all.length;
  return {
    value: {
      path: rel,
      entries,
      total: all.length,
      offset,
      hasMore,
      nextOffset: hasMore ? next : null,
      // The seed says "use the returned cursor for another page": it is the `offset` to pass.
      cursor: hasMore ? next : null,
    },
  };
}

/** A test for entries of `dirRel`; inside an ignored directory everything is ignored. */
async function ignoreTester(root: string, dirRel: string): Promise<(name: string, isDirectory: boolean) => boolean> {
  const rules = await loadIgnoreRules(root);
  await rules.prepare(dirRel);
  if (rules.match(dirRel, true) !== null) return () => true;
  return rules.entryTester(dirRel);
}

async function describe(dirAbs: string, d: Dirent, isIgnored: (name: string, isDir: boolean) => boolean): Promise<ListEntry> {
  const kind = kindOf(d);
  const ignored = isIgnored(d.name, kind === 'directory');
  if (kind !== 'file') return { name: d.name, kind, ignored };
  const size = await lstat(join(dirAbs, d.name)).then(
    (s) => s.size,
    () => undefined,
  );
  return size === undefined ? { name: d.name, kind, ignored } : { name: d.name, kind, size, ignored };
}
