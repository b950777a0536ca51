import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** HEAD is one short line; anything longer is not a HEAD file worth reading. */
const MAX_HEAD_BYTES = 4096;

/**
 * The branch a workspace's checkout is on, read from `.git/HEAD` without running git: a chip in a
 * client needs the name only, and running git in a workspace would execute its hooks and config.
 * Null when the root is not a plain checkout (no `.git` directory, a worktree file, detached HEAD).
 */
export function currentBranch(root: string): string | null {
  let head: string;
  try {
    head = readFileSync(join(root, '.git', 'HEAD'), 'utf8');
  } catch {
    return null;
  }
  if (head.length > MAX_HEAD_BYTES) return null;
  const match = /^ref: refs\/heads\/(\S+)\s*$/.exec(head);
  return match ? match[1]! : null;
}
