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
// The CommonJS packages of the start path (fastify, pino, …) go to dist/bundle/vendor.cjs, which
// main.js loads with a V8 code cache (scripts/bundle-vendor.mjs says why). Last, main.js's own code moves
// to dist/bundle/main.body.cjs, which a small main.js loads with a code cache too (scripts/bundle-main.mjs).
//
// dist/bundle/meta.json (esbuild's metafiles, main.js's and vendor.cjs's) says which sources each chunk
// holds: the start-up order test reads it to tell when the model client or an SDK is loaded.
//
// dist/ keeps tsc's per-file output too: it is the published `berth/app` SDK, and the
// benchmarks import daemon modules from it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { buildLazyPackages, deferredWork, lazyRequires, lazyPackages } from './bundle-lazy.mjs';
import { REQUIRE_BANNER, splitMain } from './bundle-main.mjs';
import { buildVendor, vendorPackages } from './bundle-vendor.mjs';

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

/** What every output shares. Whitespace and syntax only: names stay, so a stack trace in the log still says where it was. */
const OUTPUT = { minifyWhitespace: true, minifySyntax: true, sourcemap: 'linked', legalComments: 'linked', logLevel: 'warning' };

const result = await build({
  ...OUTPUT,
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
  banner: { js: REQUIRE_BANNER },
  metafile: true,
  plugins: [vendorPackages, lazyRequires, lazyPackages, deferredWork],
});
await buildLazyPackages(root, OUTPUT);
const vendor = await buildVendor(root, { ...OUTPUT, external: NEVER_LOADED.flatMap((name) => [name, `${name}/*`]), plugins: [lazyRequires, lazyPackages, deferredWork] });
const meta = { inputs: { ...result.metafile.inputs, ...vendor.inputs }, outputs: { ...result.metafile.outputs, ...vendor.outputs } };
writeFileSync(join(root, 'dist/bundle/meta.json'), JSON.stringify(meta));
// Last, since it starts the built command to make main.body.cjs's code cache.
await splitMain(root, result.metafile, OUTPUT);
