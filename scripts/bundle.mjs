#!/usr/bin/env node
// Bundles the `berth` command into dist/bundle/ (run by `npm run build`, so by `npm ci`).
//
// Why: Node's ESM loader pays for every file it resolves, reads and links. Unbundled,
// `berth serve` loads ~320 of its own modules and a few hundred of fastify's, pino's and
// ajv's before the port opens; one file with those inside starts in well under half the
// CPU time (issue 17). What the daemon imports on first use (the model client, the agent
// and MCP SDKs, the MCP server face, the ACP driver) becomes a chunk of its own, loaded
// when first asked for: the openai package alone takes ~140 ms of CPU to load as its ~300
// files and ~20 ms as one chunk. Native addons and what brings its own worker files
// (better-sqlite3, sharp, pdfjs-dist) stay packages, as do the database clients.
//
// dist/bundle/meta.json (esbuild's metafile) says which sources each chunk holds: the
// start-up order test reads it to tell when the model client or an SDK is loaded.
//
// dist/ keeps tsc's per-file output too: it is the published `berth/app` SDK, and the
// benchmarks import daemon modules from it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;

/** Native, or shipping files of its own: kept as packages, never inlined. */
const KEPT_AS_PACKAGES = ['better-sqlite3', 'sharp', 'pdfjs-dist', 'pg', 'playwright-core'];

/**
 * What a bundled package requires only on a path Berth never takes: fastify loads its default schema
 * compilers (Ajv's and fast-json-stringify's, ~200 KB of source with what they pull in) only when not
 * given compilers of its own, and http/server.ts gives it its own. Left out, they are not parsed at every
 * start; were a fastify instance ever built without them, they would load from node_modules.
 */
const NEVER_LOADED = ['@fastify/ajv-compiler', '@fastify/fast-json-stringify-compiler'];

/**
 * Node built-ins a bundled package requires at load time but calls only for features Berth does not
 * use: fastify's server module takes node:http2 (only for `http2: true`; ~6 ms of CPU to load, before
 * the port opens). It becomes a stand-in that requires the module on its first use.
 */
const LAZY_BUILTINS = [{ file: /[\\/]node_modules[\\/]fastify[\\/]lib[\\/]server\.js$/, bindings: { http2: 'node:http2' } }];

/** The esbuild plugin that rewrites `const name = require('module')` for LAZY_BUILTINS; fails the build if a line moved. */
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(bundle) {
    for (const { file, bindings } of LAZY_BUILTINS) {
      bundle.onLoad({ filter: file }, ({ path }) => {
        let contents = readFileSync(path, 'utf8');
        for (const [name, id] of Object.entries(bindings)) {
          const line = `const ${name} = require('${id}')`;
          if (!contents.includes(line)) throw new Error(`bundle: ${path} no longer has \`${line}\`; update LAZY_BUILTINS`);
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
 * Packages the daemon needs only on first use of a feature, yet are costly to evaluate: each named
 * export becomes a stand-in that requires the package (its CommonJS build, from node_modules) on
 * first touch. re2js, the linear-time regexp engine (src/protocol/tools/safe-regexp.ts), took more
 * CPU to evaluate than any other package before the port opened, and no start-up step compiles a
 * pattern. The source keeps a plain import, so tsc's dist/ and the tests load it as usual.
 */
const LAZY_PACKAGES = { re2js: ['RE2JS'] };

/** The esbuild plugin for LAZY_PACKAGES. A stand-in hands out the real export's members, methods bound to it. */
const lazyPackages = {
  name: 'lazy-packages',
  setup(bundle) {
    const names = Object.keys(LAZY_PACKAGES).map((n) => n.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'));
    bundle.onResolve({ filter: new RegExp(`^(${names.join('|')})$`) }, ({ path }) => ({ path, namespace: 'lazy-package' }));
    bundle.onLoad({ filter: /.*/, namespace: 'lazy-package' }, ({ path }) => {
      const lines = [
        "import { createRequire as lazyPackageRequire } from 'node:module';",
        'let loaded;',
        `const load = () => (loaded ??= lazyPackageRequire(import.meta.url)(${JSON.stringify(path)}));`,
        ...LAZY_PACKAGES[path].map(
          (name) =>
            `export const ${name} = new Proxy({}, { get: (_, key) => { const real = load().${name}; const v = real[key]; return typeof v === 'function' ? v.bind(real) : v; } });`,
        ),
      ];
      return { contents: lines.join('\n'), loader: 'js', resolveDir: root };
    });
  },
};

const result = await build({
  absWorkingDir: root,
  entryPoints: { main: 'src/cli/main.ts' },
  outdir: 'dist/bundle',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: [...KEPT_AS_PACKAGES, ...NEVER_LOADED].flatMap((name) => [name, `${name}/*`]),
  // Bundled CommonJS packages (fastify, pino, …) call require() on Node's built-ins.
  banner: { js: "import { createRequire as berthCreateRequire } from 'node:module'; const require = berthCreateRequire(import.meta.url);" },
  // Whitespace and syntax only: names stay, so a stack trace in the log still says where it was.
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  legalComments: 'linked',
  logLevel: 'warning',
  metafile: true,
  plugins: [lazyBuiltins, lazyPackages],
});
writeFileSync(join(root, 'dist/bundle/meta.json'), JSON.stringify(result.metafile));
