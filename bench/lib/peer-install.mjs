// Installs the peer daemon, `qwen serve` from @qwen-code/qwen-code, into a cache folder on demand.
// The peer is never a project dependency (project rule: "installed on demand into a cache folder"):
// it goes under bench/.cache/peer/ (git-ignored) or $BERTH_BENCH_CACHE/peer, with its own
// package.json, so the project's package.json and lockfile are never touched.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The version the reference captures and BASELINE.md were recorded with. */
export const PEER_PACKAGE = '@qwen-code/qwen-code';
export const PEER_VERSION = '0.24.4';

const benchDir = fileURLToPath(new URL('..', import.meta.url));

/** The cache root: $BERTH_BENCH_CACHE when set, else bench/.cache. */
export function cacheRoot() {
  const fromEnv = process.env.BERTH_BENCH_CACHE;
  return fromEnv && fromEnv.trim() !== '' ? resolve(fromEnv) : join(benchDir, '.cache');
}

function peerPrefix() {
  return join(cacheRoot(), 'peer', PEER_VERSION);
}

function installedEntry(prefix) {
  const pkgDir = join(prefix, 'node_modules', PEER_PACKAGE);
  const manifest = join(pkgDir, 'package.json');
  if (!existsSync(manifest)) return null;
  const pkg = JSON.parse(readFileSync(manifest, 'utf8'));
  if (pkg.version !== PEER_VERSION) return null;
  const entry = join(pkgDir, typeof pkg.bin === 'string' ? pkg.bin : pkg.bin.qwen);
  return existsSync(entry) ? entry : null;
}

/**
 * Returns the absolute path of the peer's CLI entry (`cli-entry.js`), installing the package
 * first when it is missing. The package has no install scripts and no required dependencies
 * (only optional native helpers: pty, clipboard, sharp), so `--ignore-scripts` loses nothing.
 * Its engines field asks for Node >= 22; it runs on Node 20 (BASELINE.md measured it so), and
 * `--engine-strict=false` keeps npm from refusing.
 */
export async function ensurePeer({ log = (line) => process.stderr.write(line + '\n') } = {}) {
  const prefix = peerPrefix();
  const found = installedEntry(prefix);
  if (found) return found;

  // Installed beside the final folder and renamed into place whole: test files run in parallel and
  // may all ask at once, and a half-extracted package (its package.json already there) must never
  // be found and started by another process while npm is still writing it.
  const staging = `${prefix}.staging-${process.pid}-${Date.now()}`;
  mkdirSync(staging, { recursive: true });
  // A package.json of its own, so npm resolves this folder as the project and never walks up
  // to the repository's package.json.
  writeFileSync(join(staging, 'package.json'), JSON.stringify({ name: 'berth-bench-peer', private: true }, null, 2) + '\n');
  log(`bench: installing ${PEER_PACKAGE}@${PEER_VERSION} into ${prefix} (once)`);
  try {
    await runNpm(
      [
        'install',
        '--prefix', staging,
        '--no-save',
        '--ignore-scripts',
        '--engine-strict=false',
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        `${PEER_PACKAGE}@${PEER_VERSION}`,
      ],
      staging,
    );
    if (!installedEntry(staging)) throw new Error(`bench: npm finished but ${PEER_PACKAGE}@${PEER_VERSION} is not in ${staging}`);
    if (!installedEntry(prefix)) {
      // Another process may have finished first (then its install stays), or an older, broken one is in the way.
      rmSync(prefix, { recursive: true, force: true });
      try {
        renameSync(staging, prefix);
      } catch (err) {
        if (!installedEntry(prefix)) throw err;
      }
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  const entry = installedEntry(prefix);
  if (!entry) throw new Error(`bench: ${PEER_PACKAGE}@${PEER_VERSION} is not in ${prefix} after installing`);
  return entry;
}

function runNpm(args, cwd) {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  return new Promise((resolvePromise, reject) => {
    const child = spawn(npm, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (code === 0) resolvePromise();
      else reject(new Error(`bench: npm ${args[0]} failed (${signal ?? `exit ${code}`})`));
    });
  });
}

// `node bench/lib/peer-install.mjs` installs (if needed) and prints the entry path.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(await ensurePeer());
}
