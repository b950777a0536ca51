import type { Stats } from 'node:fs';
import { openInside } from './handle.js';
import { toRel } from './paths.js';

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
 * OpenAPI types it (qwen sends the fractional mtime). The stat is taken of
 * the opened object, proven inside the root, never of the path string again
 * (a link swapped in meanwhile cannot answer for an outside file).
 */
export async function statPath(root: string, userPath: string): Promise<PathStat> {
  const handle = await openInside(root, userPath);
  try {
    const s = await handle.stat();
    return { kind: 'stat', path: toRel(root, handle.real), type: kindOf(s), sizeBytes: s.size, modifiedMs: Math.trunc(s.mtimeMs) };
  } finally {
    await handle.close();
  }
}
