// Splits the bundled command (dist/bundle/main.js, as esbuild wrote it) in two, so its own start path
// loads with a V8 code cache like vendor.cjs's. Why: after vendor.cjs, compiling main.js (~600 KB, every
// function the start calls compiled on its first call) was the largest cost left, and Node 20 keeps no
// compiled code for an ES module. So the module's code becomes CommonJS, main.body.cjs, that a small
// ES main.js compiles through vm.Script with a cache (scripts/bundle-main-load.mjs); main.js keeps the
// static imports (the shared chunks, Node's modules, better-sqlite3) and hands them to it, and the lazy
// chunks are still import()ed when first asked for. The cache is written from a real `berth serve`
// stopped once it has answered a client's first /health and POST /session, so the functions of a start
// and of those requests come compiled too.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, transform } from 'esbuild';
import { BODY_FILE, BODY_PARAMS } from './bundle-main-load.mjs';
import { CACHE_SUFFIX } from './bundle-vendor-load.mjs';

/** What main.js's build starts with: bundled CommonJS packages call require() on Node's built-ins. */
export const REQUIRE_BANNER = "import { createRequire as berthCreateRequire } from 'node:module'; const require = berthCreateRequire(import.meta.url);";

/** src/cli/main.ts's "run when started as a file": a top-level await, which CommonJS cannot hold, so main.js keeps it. */
const RUN_WHEN_STARTED = 'import.meta.url===pathToFileURL(process.argv[1]??"").href&&await main(process.argv);';

const [IMPORT_META, IMPORT] = BODY_PARAMS.slice(3);
const loaderFile = fileURLToPath(new URL('./bundle-main-load.mjs', import.meta.url));
const preloadFile = fileURLToPath(new URL('./bundle-main-preload.mjs', import.meta.url));

/** Rewrites dist/bundle/main.js (built with `metafile`, `options` its output options) as main.js + main.body.cjs and its code cache. */
export async function splitMain(root, metafile, options) {
  const dir = join(root, 'dist/bundle');
  const mainFile = join(dir, 'main.js');
  const bodyFile = join(dir, BODY_FILE);
  // V8 checks a cache against the source's length, not its text (see scripts/bundle-vendor.mjs).
  rmSync(bodyFile + CACHE_SUFFIX, { force: true });
  const output = metafile.outputs['dist/bundle/main.js'];
  const specifiers = [...new Set(output.imports.filter((i) => i.kind === 'import-statement').map((i) => (i.external ? i.path : `./${i.path.replace(/^dist\/bundle\//, '')}`)))];
  const source = readFileSync(mainFile, 'utf8');
  if (!source.startsWith(REQUIRE_BANNER)) throw new Error('bundle: main.js does not start with its require() banner');
  // The body is given main.js's import.meta.url and nothing else of import.meta.
  if (/import\.meta(?!\.url\b)/.test(source)) throw new Error('bundle: main.js uses import.meta beyond import.meta.url');
  const runWhenStarted = source.includes(RUN_WHEN_STARTED);
  const esm = source.slice(REQUIRE_BANNER.length).replace(RUN_WHEN_STARTED, '').replace(/\/\/# sourceMappingURL=.*\s*$/, '');
  const map = readFileSync(`${mainFile}.map`, 'utf8');
  const body = await transform(`${esm}\n//# sourceMappingURL=data:application/json;base64,${Buffer.from(map).toString('base64')}`, {
    ...options,
    legalComments: 'none',
    sourcemap: 'external',
    sourcefile: 'main.js',
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    define: { 'import.meta': IMPORT_META },
  });
  // The body sees main.js's imports through views whose only own key is __esModule (scripts/bundle-main-load.mjs).
  if (body.code.includes('__reExport(')) throw new Error('bundle: main.body.cjs re-exports an import, which its views do not allow');
  // import() in a vm.Script needs a flag on Node 20; the body calls main.js's instead.
  const dynamic = /\bimport\("/g;
  const code = body.code.replace(dynamic, `${IMPORT}("`);
  if (esm.match(dynamic)?.length !== code.split(`${IMPORT}("`).length - 1) throw new Error('bundle: main.body.cjs lost an import()');
  writeFileSync(bodyFile, `${code}//# sourceMappingURL=${BODY_FILE}.map\n`);
  writeFileSync(`${bodyFile}.map`, body.map);
  await build({
    ...options,
    legalComments: 'none',
    absWorkingDir: root,
    stdin: { contents: mainSource(specifiers, output.exports, runWhenStarted), resolveDir: dir, sourcefile: 'main-entry.js', loader: 'js' },
    outfile: mainFile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    plugins: [keepImports(specifiers)],
  });
  await writeCache(root, bodyFile + CACHE_SUFFIX);
}

/** The new main.js: main.js's imports, then the body run with them; main.js's exports are the body's. */
function mainSource(specifiers, exported, runWhenStarted) {
  const names = specifiers.map((_, i) => `imported${i}`);
  return [
    `import { loadMainBody } from ${JSON.stringify(loaderFile)};`,
    ...specifiers.map((s, i) => `import * as ${names[i]} from ${JSON.stringify(s)};`),
    ...(runWhenStarted ? ["import { pathToFileURL } from 'node:url';"] : []),
    `const body = loadMainBody(import.meta.url, { ${specifiers.map((s, i) => `${JSON.stringify(s)}: ${names[i]}`).join(', ')} }, (specifier) => import(specifier));`,
    `export const { ${exported.join(', ')} } = body.exports;`,
    '/** The compiled body, for the build to write its code cache from. */',
    'export const mainBodyScript = body.script;',
    ...(runWhenStarted ? ["if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main(process.argv);"] : []),
  ].join('\n');
}

/** main.js's imports stay imports of the files and packages esbuild's first build left. */
function keepImports(specifiers) {
  const kept = new Set(specifiers);
  return {
    name: 'keep-main-imports',
    setup(bundle) {
      bundle.onResolve({ filter: /.*/ }, ({ path }) => (kept.has(path) ? { path, external: true } : undefined));
    },
  };
}

/** Starts the built `berth serve` on a scratch home and writes the cache once it has answered a client's first requests (scripts/bundle-main-preload.mjs). */
async function writeCache(root, cacheFile) {
  const scratch = mkdtempSync(join(tmpdir(), 'berth-build-cache-'));
  try {
    const child = spawn(process.execPath, ['--import', pathToFileURL(preloadFile).href, join(root, 'bin/berth.js'), 'serve', '--port', '0', '--home', join(scratch, 'home'), '--workspace', scratch], {
      env: { ...defaultConfigEnv(), BERTH_BUILD_CODE_CACHE: cacheFile, BERTH_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const code = await new Promise((resolve) => child.once('exit', resolve));
    clearTimeout(timer);
    // A machine that builds but cannot start the daemon still has a working command, compiled at each start.
    if (code !== 0) console.warn(`bundle: main.body.cjs has no code cache (berth serve exited with ${code}): ${stderr.trim()}`);
    // The preload's own notes (a cache made without the first requests) are the builder's to see.
    else for (const line of stderr.split('\n').filter((l) => l.startsWith('bundle: '))) console.warn(line);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The builder's environment without what configures a daemon (BERTH_*, OPENAI_*): the scratch daemon runs on
 * the default configuration, so a builder's token does not refuse its first requests and its store or model
 * endpoint is never contacted by a build.
 */
function defaultConfigEnv() {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(BERTH|OPENAI)_/.test(name)));
}
