// The small workspace the session benchmark runs in: the same shape as the reference captures'
// fixture (shared/reference/qwen-serve/INDEX.md, `makeFixture`; BASELINE.md measured on it) — a
// `git init`ed folder with a .gitignore, a README, a little source and two ignored entries — so
// session and turn costs are compared on the workspace the baseline used, not on a large tree.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const FILES = {
  '.gitignore': 'node_modules/\n*.log\nbuild/\n',
  'README.md': '# Fixture\n\nA small project the session benchmark works in.\n',
  'crlf.txt': 'line one\r\nline two\r\nline three\r\n',
  'src/index.ts': 'export function greet(name: string): string {\n  return `hello ${name}`;\n}\n',
  'src/nested/deep.txt': 'deep file\n',
  'debug.log': 'ignored by .gitignore\n',
  'build/out.js': 'console.log("ignored build output");\n',
  'big.txt': Array.from({ length: 400 }, (_, i) => `line ${i + 1}`).join('\n') + '\n',
};

/** Writes the workspace into `dir` (created if needed), adds a 64-byte binary blob and runs `git init`. */
export function makeSmallWorkspace(dir) {
  for (const [path, text] of Object.entries(FILES)) {
    const full = join(dir, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, text);
  }
  writeFileSync(join(dir, 'blob.bin'), Buffer.from(Array.from({ length: 64 }, (_, i) => (i % 7 === 0 ? 0 : i))));
  const git = spawnSync('git', ['init', '-q'], { cwd: dir, stdio: 'ignore' });
  return { files: Object.keys(FILES).length + 1, gitInit: git.status === 0 };
}
