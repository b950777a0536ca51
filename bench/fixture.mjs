// A deterministic 10,000-file workspace for the benchmarks: nested source folders, docs, one
// large flat folder, vendored code, binary assets, and ignored trees (node_modules/, build/,
// coverage/, *.log) behind a .gitignore with a negation. Same seed → same names, sizes and bytes.
// Like the reference fixture (INDEX.md, `makeFixture`) it is a `git init`ed folder.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const FIXTURE_FILES = 10_000;
const SEED = 0x0b3e7f;

/** Files the read benchmark names; their sizes are fixed, not drawn. */
export const TARGETS = {
  smallFile: 'src/app/main.ts',
  smallFileBytes: 1_200,
  mediumFile: 'docs/reference/api.md',
  mediumFileBytes: 96 * 1024,
  largeDir: 'assets/icons',
  largeDirFiles: 1_500,
  globWide: '**/*.ts',
  globNarrow: 'src/core/**/*.test.ts',
};

const GITIGNORE = ['node_modules/', 'build/', 'coverage/', '*.log', '*.tmp', '!keep.log', ''].join('\n');

/** mulberry32: a tiny, well-spread 32-bit PRNG; enough for reproducible layouts. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = 'alpha beta gamma delta session prompt token event buffer stream cursor window file path glob list cache index value result error reply frame channel policy guard tool receipt workspace'.split(' ');

/** Source-like lines that share the file's extension flavour. */
function makeLine(rand, ext, n) {
  const w = () => WORDS[Math.floor(rand() * WORDS.length)];
  const id = `${w()}${w()[0].toUpperCase()}${w().slice(1)}${n}`;
  switch (ext) {
    case 'ts':
    case 'tsx':
    case 'js':
      return rand() < 0.5
        ? `export function ${id}(input: number): number { return input * ${n % 97} + ${Math.floor(rand() * 1000)}; }`
        : `  const ${id} = await load('${w()}/${w()}', { limit: ${Math.floor(rand() * 500)} });`;
    case 'json':
      return `  "${id}": { "${w()}": ${Math.floor(rand() * 10_000)}, "${w()}": "${w()} ${w()}" },`;
    case 'css':
      return `.${w()}-${w()} { margin: ${Math.floor(rand() * 32)}px; color: #${Math.floor(rand() * 0xffffff).toString(16).padStart(6, '0')}; }`;
    default:
      return `The ${w()} ${w()} keeps its ${w()} when the ${w()} ${w()} changes (note ${n}).`;
  }
}

function textOfSize(rand, ext, bytes) {
  const lines = [];
  let size = 0;
  for (let n = 0; size < bytes; n += 1) {
    const line = makeLine(rand, ext, n);
    lines.push(line);
    size += Buffer.byteLength(line) + 1;
  }
  return (lines.join('\n') + '\n').slice(0, bytes);
}

/** A PNG-looking blob: a real signature, then bytes with NULs so readers call it binary. */
function binaryOfSize(rand, bytes) {
  const buf = Buffer.alloc(bytes);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(buf);
  for (let i = 8; i < bytes; i += 1) buf[i] = rand() < 0.2 ? 0 : Math.floor(rand() * 256);
  return buf;
}

/** Mostly small files, some medium, a few large: 70 % < 4 KB, 22 % < 16 KB, 7 % < 64 KB, 1 % < 200 KB. */
function drawSize(rand) {
  const r = rand();
  const between = (lo, hi) => lo + Math.floor(rand() * (hi - lo));
  if (r < 0.7) return between(200, 4_000);
  if (r < 0.92) return between(4_000, 16_000);
  if (r < 0.99) return between(16_000, 64_000);
  return between(64_000, 200_000);
}

const SRC_EXTS = [['ts', 0.58], ['tsx', 0.1], ['test.ts', 0.12], ['js', 0.06], ['json', 0.05], ['css', 0.05], ['md', 0.04]];

function pickExt(rand, table) {
  let r = rand();
  for (const [ext, p] of table) {
    if ((r -= p) < 0) return ext;
  }
  return table[0][0];
}

/** The layout as [relativePath, ext] pairs in a fixed order; with .gitignore, FIXTURE_FILES files. */
function plan(rand) {
  const files = [];
  const add = (path, ext) => files.push([path, ext]);
  for (const f of ['README.md', 'package.json', 'tsconfig.json', 'LICENSE.md']) add(f, f.split('.').pop());
  add('keep.log', 'log'); // un-ignored by the negation rule
  add(TARGETS.smallFile, 'ts');
  add(TARGETS.mediumFile, 'md');
  for (let i = 0; i < TARGETS.largeDirFiles; i += 1) add(`${TARGETS.largeDir}/icon-${String(i).padStart(4, '0')}.${i % 5 === 0 ? 'png' : 'svg'}`, i % 5 === 0 ? 'png' : 'svg');
  for (let d = 0; d < 8; d += 1) for (let i = 0; i < 50; i += 1) add(`docs/section-${d}/page-${i}.md`, 'md');
  for (let p = 0; p < 25; p += 1) for (let i = 0; i < 20; i += 1) add(`vendor/lib-${p}/dist/part-${i}.js`, 'js');
  for (let i = 0; i < 600; i += 1) add(`test/fixtures/set-${i % 12}/case-${i}.${i % 3 === 0 ? 'json' : 'txt'}`, i % 3 === 0 ? 'json' : 'txt');
  // Ignored trees: what a real checkout carries and a reader must skip.
  for (let p = 0; p < 60; p += 1) {
    for (let i = 0; i < 25; i += 1) {
      const ext = ['js', 'd.ts', 'json', 'md', 'js'][i % 5];
      add(`node_modules/pkg-${p}/${i < 15 ? 'lib/' : ''}file-${i}.${ext}`, ext);
    }
  }
  for (let i = 0; i < 400; i += 1) add(`build/chunk-${i % 20}/out-${i}.js`, 'js');
  for (let i = 0; i < 200; i += 1) add(`coverage/lcov-report/file-${i}.html`, 'html');
  // The source tree takes whatever is left, spread over areas/modules/internal folders.
  const areas = ['core', 'http', 'store', 'tools', 'agents', 'events', 'gateway', 'workspace', 'sessions', 'ui', 'cli', 'util'];
  let n = 0;
  while (files.length < FIXTURE_FILES - 1 - 50) { // 1 for .gitignore, 50 for the logs below
    const area = areas[n % areas.length];
    const mod = Math.floor(n / areas.length) % 10;
    const nested = rand() < 0.3 ? 'internal/' : '';
    const ext = pickExt(rand, SRC_EXTS);
    add(`src/${area}/mod-${mod}/${nested}unit-${n}.${ext}`, ext.endsWith('ts') ? 'ts' : ext);
    n += 1;
  }
  for (let i = 0; i < 50; i += 1) add(`src/${areas[i % areas.length]}/debug-${i}.log`, 'log');
  return files;
}

/**
 * Writes the fixture into `dir` (created if needed) and runs `git init`.
 * Returns `{files, bytes, ignored}`: counts for the report.
 */
export function makeFixture(dir) {
  const rand = prng(SEED);
  const layout = plan(rand);
  let bytes = 0;
  let ignored = 0;
  const made = new Set();
  for (const [path, ext] of layout) {
    const size =
      path === TARGETS.smallFile ? TARGETS.smallFileBytes : path === TARGETS.mediumFile ? TARGETS.mediumFileBytes : drawSize(rand);
    const content = ext === 'png' ? binaryOfSize(rand, Math.min(size, 8_000)) : textOfSize(rand, ext, size);
    const full = join(dir, path);
    const parent = dirname(full);
    if (!made.has(parent)) {
      mkdirSync(parent, { recursive: true });
      made.add(parent);
    }
    writeFileSync(full, content);
    bytes += content.length;
    if (/^(node_modules|build|coverage)\//.test(path) || (path.endsWith('.log') && path !== 'keep.log')) ignored += 1;
  }
  writeFileSync(join(dir, '.gitignore'), GITIGNORE);
  const git = spawnSync('git', ['init', '-q'], { cwd: dir, stdio: 'ignore' });
  return { files: layout.length + 1, bytes: bytes + GITIGNORE.length, ignored, gitInit: git.status === 0 };
}
