import { lstat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { confine } from './paths.js';

export type EntryKind = 'file' | 'directory' | 'symlink' | 'other';

/** The kind of a directory entry or stat result, as the contract names them (docs/client-api.md §11.4, §11.5). */
export function kindOf(s: Pick<Stats, 'isFile' | 'isDirectory' | 'isSymbolicLink'>): EntryKind {
  if (s.isFile()) return 'file';
  if (s.isDirectory()) return 'directory';
  if (s.isSymbolicLink()) return 'symlink';
  return 'other';
}

/** The `WorkspaceStat` answer (contract/openapi.json), in wire field order. */
export interface PathStat {
  readonly kind: 'stat';
  readonly path: string;
  readonly type: EntryKind;
  readonly sizeBytes: number;
  readonly modifiedMs: number;
}

/**
 * Stats a workspace path (docs/client-api.md §11.4). In-workspace links are followed, so
 * `path` and `type` describe the target. `modifiedMs` is an integer, as the
 * OpenAPI types it (qwen sends the fractional mtime).
 */
export async function statPath(root: string, userPath: string): Promise<PathStat> {
  const target = await confine(root, userPath);
  const s = await lstat(target.abs);
  return { kind: 'stat', path: target.rel, type: kindOf(s), sizeBytes: s.size, modifiedMs: Math.trunc(s.mtimeMs) };
}
