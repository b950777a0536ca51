// The CommonJS packages berth loads before its port opens, as one file with a V8 code cache
// (dist/bundle/vendor.cjs and vendor.cjs.cache). Why: compiling JavaScript was the largest single
// cost of start-up, and fastify, pino, commander, ws, picomatch and ignore are most of the source
// main.js parsed; compiled from the cache they load in ~15% fewer instructions. Node 20 caches no
// compiled code of its own, so main.js loads the file itself (scripts/bundle-vendor-load.mjs).
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { build } from 'esbuild';
import { CACHE_SUFFIX, VENDOR_FILE, loadVendor } from './bundle-vendor-load.mjs';

export const VENDORED = ['fastify', 'pino', 'commander', 'ws', 'picomatch', 'ignore'];

const loaderFile = new URL('./bundle-vendor-load.mjs', import.meta.url).pathname;

/** Points every `import`/`require` of a VENDORED package in main.js's build at vendor.cjs's copy. */
export const vendorPackages = {
  name: 'vendor-packages',
  setup(bundle) {
    bundle.onResolve({ filter: new RegExp(`^(${VENDORED.join('|')})$`) }, ({ path }) => ({ path, namespace: 'vendor-package' }));
    bundle.onLoad({ filter: /.*/, namespace: 'vendor-package' }, ({ path }) => ({
      contents: `module.exports = require(${JSON.stringify(loaderFile)}).vendorPackages()[${JSON.stringify(path)}];`,
      loader: 'js',
      resolveDir: new URL('.', import.meta.url).pathname,
    }));
  },
};

/** Builds dist/bundle/vendor.cjs (with `options`, main.js's) and writes its code cache; returns esbuild's metafile. */
export async function buildVendor(root, options) {
  const file = join(root, 'dist/bundle', VENDOR_FILE);
  // V8 checks a cache against the source's length, not its text: one left from an earlier build
  // must never sit beside a new vendor.cjs, even if this build stops half-way.
  rmSync(file + CACHE_SUFFIX, { force: true });
  const result = await build({
    ...options,
    absWorkingDir: root,
    metafile: true,
    stdin: { contents: `module.exports = { ${VENDORED.map((name) => `${JSON.stringify(name)}: require(${JSON.stringify(name)})`).join(', ')} };`, resolveDir: root, loader: 'js' },
    outfile: file,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
  });
  await writeCache(file);
  return result.metafile;
}

/**
 * V8 caches the code of the functions compiled so far, and compiles most functions on their first
 * call: the cache is made after a start's worth of use (a server with a route answering a request,
 * a logger, a command line), so those functions come compiled too.
 */
async function writeCache(file) {
  const { exports: vendor, script } = loadVendor(file);
  try {
    await startLikeBerth(vendor);
  } catch (err) {
    // A machine that builds but cannot listen on loopback still gets the code compiled so far.
    console.warn(`bundle: vendor.cjs's code cache made without a whole start: ${err.message}`);
  }
  writeFileSync(file + CACHE_SUFFIX, script.createCachedData());
}

async function startLikeBerth(vendor) {
  const log = vendor.pino({ level: 'info' }, new Writable({ write: (_chunk, _enc, done) => done() }));
  log.info({ at: 'build' }, 'code cache');
  log.child({ part: 'cache' }).warn('child');
  const program = new vendor.commander.Command('berth').option('--port <n>').option('--home <dir>');
  program.command('serve').option('--workspace <dir>').action(() => {});
  program.parse(['node', 'berth', 'serve', '--workspace', '.'], { from: 'node' });
  vendor.picomatch('src/**/*.ts')('src/a/b.ts');
  vendor.ignore().add(['node_modules', '*.log']).ignores('a.log');
  const app = vendor.fastify({ logger: false });
  app.get('/health/:id', async () => ({ ok: true }));
  app.post('/items', async (request) => request.body);
  new vendor.ws.WebSocketServer({ noServer: true }).close();
  try {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address();
    await fetch(`http://127.0.0.1:${port}/health/1`);
    await fetch(`http://127.0.0.1:${port}/items`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
  } finally {
    await app.close();
  }
}
