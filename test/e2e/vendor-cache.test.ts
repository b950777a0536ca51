import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { STORE_FILE } from '../../src/store/db.js';
import { removeDir, tempDir } from '../support/tmp.js';

/**
 * The built command loads its vendored packages (dist/bundle/vendor.cjs) and its own code
 * (dist/bundle/main.body.cjs) with V8 code caches written at build time (scripts/bundle-vendor.mjs,
 * scripts/bundle-main.mjs). Each cache must be one V8 takes, and one it does not take (another Node,
 * a damaged file) or a missing one must not stop the daemon.
 */
const repoRoot = new URL('../..', import.meta.url).pathname;
const vendorFile = join(repoRoot, 'dist/bundle/vendor.cjs');
const notBuilt = existsSync(vendorFile) ? false : 'dist/bundle/vendor.cjs is not built (npm run build)';

interface VendorLoad {
  exports: Record<string, unknown>;
  cacheRejected: boolean | undefined;
}
const loader = (): Promise<{ loadVendor(file: string): VendorLoad }> =>
  // @ts-expect-error the build script is plain JavaScript without types
  import('../../scripts/bundle-vendor-load.mjs');

describe("the built command's code caches", { skip: notBuilt, timeout: 60_000 }, () => {
  let copy: string;
  before(() => {
    // A copy of the built command, so its cache can be damaged without touching the checkout's.
    copy = tempDir('berth-vendor-cache-');
    for (const part of ['bin', 'dist/bundle', 'contract', 'package.json']) cpSync(join(repoRoot, part), join(copy, part), { recursive: true });
    symlinkSync(join(repoRoot, 'node_modules'), join(copy, 'node_modules'));
  });
  after(() => removeDir(copy));

  /** Loads the copy's vendor.cjs; whether V8 took its cache, and whether fastify came out of it. */
  async function loadCopy(): Promise<{ cacheRejected: boolean | undefined; fastify: string }> {
    const loaded = (await loader()).loadVendor(join(copy, 'dist/bundle/vendor.cjs'));
    return { cacheRejected: loaded.cacheRejected, fastify: typeof loaded.exports.fastify };
  }

  it('is taken by this Node as built', async () => {
    assert.deepEqual(await loadCopy(), { cacheRejected: false, fastify: 'function' });
  });

  it('when damaged, is rejected and the packages load from source', async () => {
    writeFileSync(join(copy, 'dist/bundle/vendor.cjs.cache'), Buffer.alloc(4096, 7));
    assert.deepEqual(await loadCopy(), { cacheRejected: true, fastify: 'function' });
  });

  /** Imports the copy's main.js (as a module of its own each time); whether V8 took main.body.cjs's cache, and whether main came out of it. */
  async function importCopyMain(instance: string): Promise<{ cacheRejected: boolean | undefined; main: string }> {
    const url = `${pathToFileURL(join(copy, 'dist/bundle/main.js')).href}?${instance}`;
    const loaded = (await import(url)) as { main: unknown; mainBodyScript: { cachedDataRejected?: boolean } };
    return { cacheRejected: loaded.mainBodyScript.cachedDataRejected, main: typeof loaded.main };
  }

  it("main.js's own code (main.body.cjs) has a cache this Node takes as built", async () => {
    assert.deepEqual(await importCopyMain('as-built'), { cacheRejected: false, main: 'function' });
  });

  it("main.body.cjs's cache, when damaged, is rejected and the code compiles from source", async () => {
    writeFileSync(join(copy, 'dist/bundle/main.body.cjs.cache'), Buffer.alloc(4096, 7));
    assert.deepEqual(await importCopyMain('damaged'), { cacheRejected: true, main: 'function' });
  });

  it("main.body.cjs's cache is written once the built daemon has answered a client's first /health, POST /session and turn", async () => {
    // What the build runs (scripts/bundle-main.mjs), on this checkout's command: the functions of those requests must be in the cache.
    const dir = tempDir('berth-main-cache-');
    try {
      mkdirSync(join(dir, 'ws'));
      const cacheFile = join(dir, 'main.body.cjs.cache');
      const preload = pathToFileURL(join(repoRoot, 'scripts/bundle-main-preload.mjs')).href;
      const child = spawn(process.execPath, ['--import', preload, join(repoRoot, 'bin/berth.js'), 'serve', '--port', '0', '--home', join(dir, 'home'), '--workspace', join(dir, 'ws')], {
        env: { ...process.env, BERTH_BUILD_CODE_CACHE: cacheFile, BERTH_LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const code = await new Promise((resolve) => child.once('exit', resolve));
      assert.equal(code, 0, stderr);
      assert.doesNotMatch(stderr, /without the first requests/);
      assert.ok(statSync(cacheFile).size > 0);
      const db = new Database(join(dir, 'home', STORE_FILE), { readonly: true });
      try {
        assert.equal((db.prepare('SELECT COUNT(*) AS n FROM sessions').get() as { n: number }).n, 1);
        assert.equal((db.prepare('SELECT COUNT(*) AS n FROM prompts').get() as { n: number }).n, 1, 'the first turn ran');
        assert.ok((db.prepare("SELECT COUNT(*) AS n FROM transcript WHERE kind = 'agent_message'").get() as { n: number }).n >= 1, 'and the scripted model answered it');
      } finally {
        db.close();
      }
    } finally {
      removeDir(dir);
    }
  });

  it('when both caches are damaged, still lets the daemon start and answer /health', async () => {
    writeFileSync(join(copy, 'dist/bundle/vendor.cjs.cache'), Buffer.alloc(4096, 7));
    writeFileSync(join(copy, 'dist/bundle/main.body.cjs.cache'), Buffer.alloc(4096, 7));
    const dir = tempDir('berth-vendor-home-');
    mkdirSync(join(dir, 'ws'));
    const child = spawn(process.execPath, [join(copy, 'bin/berth.js'), 'serve', '--port', '0', '--home', join(dir, 'home'), '--workspace', join(dir, 'ws')], {
      cwd: copy,
      env: { ...process.env, BERTH_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /berth listening on (\S+)/.exec(out);
          if (m) resolve(m[1]!);
        });
        child.once('exit', (code) => reject(new Error(`berth exited with ${code} before listening: ${stderr}`)));
      });
      const health = await fetch(`${url}/health`);
      assert.equal(health.status, 200);
    } finally {
      child.kill('SIGTERM');
      await exited;
      removeDir(dir);
    }
  });
});
