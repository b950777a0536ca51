import { lstat, opendir, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The temporary files a write leaves when the daemon dies between creating
 * and renaming them (`.NAME.berth-UUID.tmp`, beside their target). Start-up
 * removes them from every local workspace, in the background. Only names of
 * exactly that shape, only regular files (never a link or a folder), and only
 * ones older than TEMP_SWEEP_MIN_AGE_MS, so a write another daemon on the same
 * folder has in flight is never cut.
 */
export const TEMP_FILE_PATTERN = /^\..+\.berth-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.tmp$/;
/** A write renames its temp file within milliseconds; one this old was left by a process that died. */
export const TEMP_SWEEP_MIN_AGE_MS = 60_000;
/** Entries looked at per workspace, so a huge tree costs bounded time at start-up. */
export const TEMP_SWEEP_MAX_ENTRIES = 200_000;
/** Folders that never hold a workspace write's target and can be very large. */
const SKIPPED = new Set(['.git', 'node_modules']);

export interface SweepResult {
  readonly removed: number;
  readonly visited: number;
  readonly truncated: boolean;
}

export async function sweepTempFiles(root: string, now: number, maxEntries = TEMP_SWEEP_MAX_ENTRIES): Promise<SweepResult> {
  let removed = 0;
  let visited = 0;
  const folders = [root];
  while (folders.length > 0) {
    const folder = folders.pop()!;
    let dir;
    try {
      dir = await opendir(folder);
    } catch {
      continue;
    }
    for await (const entry of dir) {
      if (++visited > maxEntries) {
        await dir.close().catch(() => undefined);
        return { removed, visited: visited - 1, truncated: true };
      }
      const path = join(folder, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED.has(entry.name)) folders.push(path);
      } else if (entry.isFile() && TEMP_FILE_PATTERN.test(entry.name)) {
        const st = await lstat(path).catch(() => null);
        if (st?.isFile() && now - st.mtimeMs >= TEMP_SWEEP_MIN_AGE_MS) {
          await unlink(path).then(() => removed++, () => undefined);
        }
      }
    }
  }
  return { removed, visited, truncated: false };
}
