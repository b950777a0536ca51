// What scripts/bundle.mjs keeps off berth's start-up path while leaving the sources as they are
// (tsc's dist/ and the tests import everything the usual way): esbuild plugins that load a
// module on its first use instead of with the bundle.
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';

/**
 * Modules a bundled package requires at load time but calls only for features Berth does not use;
 * each becomes a stand-in that requires the module on its first use. fastify's server module takes
 * node:http2 (only for `http2: true`; ~6 ms of CPU to load), its plugin checks take semver (only for
 * a plugin declaring the fastify versions it supports, and Berth registers none; building semver's
 * regular expressions is a few ms of every start).
 */
const LAZY_REQUIRES = [
  { file: /[\\/]node_modules[\\/]fastify[\\/]lib[\\/]server\.js$/, bindings: { http2: 'node:http2' } },
  { file: /[\\/]node_modules[\\/]fastify[\\/]lib[\\/]plugin-utils\.js$/, bindings: { semver: 'semver' } },
];

/**
 * Work a bundled package does for every route at registration that only a request needs. find-my-way
 * compiles, with `new Function`, a prefix matcher for each static node of its routing trees (about 450
 * at start-up, ~15 ms of CPU); the rewrite compiles each on the first request that tests its node's
 * prefix and puts the compiled matcher in the node's place (it is called as the node's method), so
 * later requests call it directly and routing answers the same.
 */
const DEFERRED_WORK = [
  {
    file: /[\\/]node_modules[\\/]find-my-way[\\/]lib[\\/]node\.js$/,
    from: 'function compilePrefixMatch (prefix) {\n',
    to:
      'function compilePrefixMatch (prefix) {\n' +
      '  if (prefix.length === 1) return matchSingleCharPrefix\n' +
      '  return function matchPrefixOnFirstUse (path, i) { const match = compilePrefixMatchNow(prefix); this.matchPrefix = match; return match(path, i) }\n' +
      '}\n' +
      'function compilePrefixMatchNow (prefix) {\n',
  },
];

/** Applies DEFERRED_WORK; fails the build if the rewritten text moved. */
export const deferredWork = {
  name: 'deferred-work',
  setup(bundle) {
    for (const { file, from, to } of DEFERRED_WORK) {
      bundle.onLoad({ filter: file }, ({ path }) => {
        const contents = readFileSync(path, 'utf8');
        if (!contents.includes(from)) throw new Error(`bundle: ${path} no longer has \`${from.trim()}\`; update DEFERRED_WORK`);
        return { contents: contents.replace(from, to), loader: 'js' };
      });
    }
  },
};

/** Rewrites `const name = require('module')` for LAZY_REQUIRES; fails the build if such a line moved. */
export const lazyRequires = {
  name: 'lazy-requires',
  setup(bundle) {
    for (const { file, bindings } of LAZY_REQUIRES) {
      bundle.onLoad({ filter: file }, ({ path }) => {
        let contents = readFileSync(path, 'utf8');
        for (const [name, id] of Object.entries(bindings)) {
          const line = `const ${name} = require('${id}')`;
          if (!contents.includes(line)) throw new Error(`bundle: ${path} no longer has \`${line}\`; update LAZY_REQUIRES`);
          contents = contents.replace(
            line,
            `let ${name}Loaded; const ${name} = new Proxy({}, { get: (_, key) => (${name}Loaded ??= require('${id}'))[key] })`,
          );
        }
        return { contents, loader: 'js' };
      });
    }
  },
};

/**
 * Packages Berth's own code (src/) needs only on first use of a feature, yet costly to parse and
 * evaluate before the port opens, with the named exports src/ imports. re2js, the linear-time
 * regexp engine (src/protocol/tools/safe-regexp.ts), took more CPU to evaluate than any other
 * package on the start path, and no start-up step compiles a pattern. Ajv (180 KB) compiles only
 * the schemas of a config file, an application's tools, a tool call's arguments or a test's
 * response check; the request bodies come precompiled (src/http/request-validators.gen.ts). Each
 * is bundled into a CommonJS file of its own, dist/bundle/lazy/<name>.cjs, that a stand-in
 * requires on first touch. They are not preloaded once the port is open: measured, the loads then
 * landed on the sessions a starting client creates; the first pattern or schema pays a few ms once.
 */
const LAZY_PACKAGES = { re2js: ['RE2JS'], ajv: ['Ajv'] };

/**
 * Packages that bundled CommonJS code requires only inside a function Berth's start-up never calls:
 * semver (fastify's plugin version check, made lazy above) and light-my-request (fastify's
 * `inject`, which only a cluster node forwarding a request calls). Their `require()` points at
 * their own one-file build, so main.js does not carry their source (85 KB) to be parsed at every start.
 */
const REQUIRED_LATER = ['semver', 'light-my-request'];

const LAZY_DIR = 'lazy';
const lazyFile = (name) => `./${LAZY_DIR}/${name}.cjs`;

/**
 * Points src/'s imports of LAZY_PACKAGES at stand-ins (other packages importing them keep the
 * bundled copy), and bundled code's require() of REQUIRED_LATER at their files.
 */
export const lazyPackages = {
  name: 'lazy-packages',
  setup(bundle) {
    const standIns = new RegExp(`^(${Object.keys(LAZY_PACKAGES).join('|')})$`);
    const fromSrc = (importer) => !/[\\/]node_modules[\\/]/.test(importer);
    bundle.onResolve({ filter: standIns }, ({ path, importer }) => (fromSrc(importer) ? { path, namespace: 'lazy-package' } : undefined));
    bundle.onLoad({ filter: /.*/, namespace: 'lazy-package' }, ({ path }) => ({ contents: standIn(path, LAZY_PACKAGES[path]), loader: 'js' }));
    const later = new RegExp(`^(${REQUIRED_LATER.join('|')})$`);
    bundle.onResolve({ filter: later }, ({ path, kind }) => (kind === 'require-call' ? { path: lazyFile(path), external: true } : undefined));
  },
};

/**
 * A module exporting, for each name, a stand-in for the package's export: a property read gets the
 * real export's (methods bound to it), `new` builds the real class. Chunks all sit in dist/bundle/.
 */
function standIn(name, exportNames) {
  return [
    "import { createRequire as lazyPackageRequire } from 'node:module';",
    'let loaded;',
    `const load = () => (loaded ??= lazyPackageRequire(import.meta.url)(${JSON.stringify(lazyFile(name))}));`,
    ...exportNames.map(
      (exported) =>
        `export const ${exported} = new Proxy(function () {}, {` +
        ` get: (_, key) => { const real = load().${exported}; const v = real[key]; return typeof v === 'function' ? v.bind(real) : v; },` +
        ` construct: (_, args) => Reflect.construct(load().${exported}, args) });`,
    ),
  ].join('\n');
}

/** Builds dist/bundle/lazy/<name>.cjs for each of LAZY_PACKAGES and REQUIRED_LATER: one file, so its first use reads one file. */
export async function buildLazyPackages(root, options) {
  await build({
    ...options,
    absWorkingDir: root,
    entryPoints: Object.fromEntries([...Object.keys(LAZY_PACKAGES), ...REQUIRED_LATER].map((name) => [name, name])),
    outdir: `dist/bundle/${LAZY_DIR}`,
    outExtension: { '.js': '.cjs' },
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
  });
}
