import { mkdtempSync, mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** A fresh temp folder (realpath'd, so it compares equal to what the daemon reports). */
export function tempDir(prefix = 'berth-test-'): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

/** Writes a tree of files: `{ 'src/a.ts': 'text', 'bin.dat': Buffer }`. */
export function writeTree(root: string, files: Record<string, string | Buffer>): void {
  for (const [rel, content] of Object.entries(files)) {
    const abs = join(root, rel);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, content);
  }
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
