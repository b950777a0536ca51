import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { removeDir, tempDir, writeTree } from '../support/tmp.js';

/**
 * Fixtures shared by the workspace-read tests: the reference fixture of
 * shared/reference/qwen-serve (INDEX.md, `makeFixture`) plus the odd files
 * (BOMs, binaries, large text) and links the issue asks to cover.
 */

export const README = '# Fixture\n\nhello world\nsecond line\n';
export const CRLF = 'line one\r\nline two\r\nline three\r\n';
/** 400 lines and a trailing newline: 401 lines as split on LF, 3492 bytes (as in the recording). */
export const BIG = Array.from({ length: 400 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
/** Above the 256 KiB whole-read budget, no trailing newline. */
export const LARGE_LINES = Array.from({ length: 5000 }, (_, i) => `row-${i + 1} ${'x'.repeat(60)}`);
export const LARGE = LARGE_LINES.join('\n');

const utf16be = (s: string): Buffer => Buffer.from(s, 'utf16le').swap16();
function utf32le(s: string): Buffer {
  const cps = [...s].map((c) => c.codePointAt(0)!);
  const b = Buffer.alloc(cps.length * 4);
  cps.forEach((cp, i) => b.writeUInt32LE(cp, i * 4));
  return b;
}

export const BLOB = Buffer.from(Array.from({ length: 64 }, (_, i) => (i * 37) % 256)); // byte 0 is NUL

export function readsFiles(): Record<string, string | Buffer> {
  return {
    '.gitignore': 'node_modules/\n*.log\nbuild/\n',
    'README.md': README,
    'crlf.txt': CRLF,
    'blob.bin': BLOB,
    'control.bin': Buffer.from(Array.from({ length: 100 }, (_, i) => 1 + (i % 8))),
    'src/index.ts': 'export const answer = 42;\n',
    'src/nested/deep.txt': 'deep\n',
    'debug.log': 'ignored by *.log\n',
    'build/out.js': 'ignored by build/\n',
    'big.txt': BIG,
    'large.txt': LARGE,
    'noeol.txt': 'a\nb',
    'empty.txt': '',
    'multi.txt': '中文🙂中文🙂\n',
    'bom8.txt': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('héllo\nwörld\n')]),
    'bom16le.txt': Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('hi\r\nthere\r\n', 'utf16le')]),
    'bom16be.txt': Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be('big end\n')]),
    'bom32le.txt': Buffer.concat([Buffer.from([0xff, 0xfe, 0x00, 0x00]), utf32le('x🙂\ny')]),
    'large-utf16.txt': Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('中文日志行\n'.repeat(30_000), 'utf16le')]),
    'large-binary.dat': Buffer.alloc(300 * 1024),
    '.git/HEAD': 'ref: refs/heads/main\n',
  };
}

/** A folder next to the workspace holding what no read may reach. */
export function makeOutside(): string {
  const outside = tempDir('berth-outside-');
  writeTree(outside, { 'secret.txt': 'top secret\n' });
  return outside;
}

/** Links of every kind the confinement tests need, made inside `root`. */
export function makeLinks(root: string, outside: string): void {
  symlinkSync(join(outside, 'secret.txt'), join(root, 'link-out-file'));
  symlinkSync(outside, join(root, 'link-out-dir'));
  symlinkSync(join(root, 'nothing-here'), join(root, 'dangling'));
  symlinkSync(join(root, 'loop-b'), join(root, 'loop-a'));
  symlinkSync(join(root, 'loop-a'), join(root, 'loop-b'));
  symlinkSync(join(root, 'src/index.ts'), join(root, 'link-in'));
  symlinkSync('src', join(root, 'dir-in'));
}

export const NOBODY = 65_534;

/**
 * Why the daemon of startUnprivilegedDaemon cannot run here, or undefined.
 * As root it runs as `nobody`, who must be able to read the checkout: a clone
 * inside a private (0700) directory is not, and that says nothing about Berth.
 */
export const unprivilegedSkip: string | undefined = (() => {
  if (process.getuid?.() !== 0) return undefined;
  const manifest = new URL('../../package.json', import.meta.url).pathname;
  const probe = spawnSync(process.execPath, ['-e', `require('fs').accessSync(${JSON.stringify(manifest)}, 4)`], {
    uid: NOBODY,
    gid: NOBODY,
  });
  return probe.status === 0 ? undefined : 'the checkout is not readable by the unprivileged user (uid 65534) this test runs the daemon as';
})();

/**
 * Permission bits do not bind root, so a 403 needs a daemon that is not root:
 * when the tests run as root, this one runs the CLI as `nobody` on its own
 * home and on `workspace` (handed over to nobody); otherwise as ourselves.
 * `denied` lists paths (relative to the workspace) made unreadable.
 */
export async function startUnprivilegedDaemon(
  workspace: string,
  denied: readonly string[],
): Promise<{ url: string; stop(): Promise<void> }> {
  const asRoot = process.getuid?.() === 0;
  const home = tempDir('berth-home-');
  if (asRoot) {
    chownTree(home);
    chownTree(workspace);
  }
  for (const rel of denied) chmodSync(join(workspace, rel), 0o000);
  const repoRoot = new URL('../..', import.meta.url).pathname;
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', join(repoRoot, 'src/cli/main.ts'), 'serve', '--port', '0', '--workspace', workspace, '--home', home],
    {
      cwd: repoRoot,
      env: { ...process.env, HOME: home, BERTH_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(asRoot ? { uid: NOBODY, gid: NOBODY } : {}),
    },
  );
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /berth listening on (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`unprivileged daemon exited with ${code}: ${err}`)));
  });
  return {
    url,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      for (const rel of denied) chmodSync(join(workspace, rel), 0o755);
      removeDir(home);
    },
  };
}

/** Hands a fresh temp tree of our own to nobody. */
function chownTree(dir: string): void {
  const r = spawnSync('chown', ['-R', `${NOBODY}:${NOBODY}`, dir]);
  if (r.status !== 0) throw new Error(`chown failed: ${r.stderr}`);
}

export function writeFile(root: string, rel: string, content: string | Buffer): void {
  const abs = join(root, rel);
  mkdirSync(join(abs, '..'), { recursive: true });
  writeFileSync(abs, content);
}
