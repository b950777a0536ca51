#!/usr/bin/env node
// Bundles the `berth` command into dist/bundle/ (run by `npm run build`, so by `npm ci`).
//
// Why: Node's ESM loader pays for every file it resolves, reads and links. Unbundled,
// `berth serve` loads ~320 of its own modules and a few hundred of fastify's, pino's and
// ajv's before the port opens; one file with those inside starts in well under half the
// CPU time (issue 17). What loads only after the port opens stays outside the bundle:
// the native addons (better-sqlite3, sharp), and the model, agent and MCP SDKs, PDF and
// database clients, which the daemon imports on first use. They keep their own files, so
// the start-up order test still sees when each one loads.
//
// dist/ keeps tsc's per-file output too: it is the published `berth/app` SDK, and the
// benchmarks import daemon modules from it.
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;

/** Loaded after the port opens, or native: kept as packages, never inlined. */
const LOADED_LATER = [
  'better-sqlite3',
  'sharp',
  'pdfjs-dist',
  'openai',
  '@agentclientprotocol/sdk',
  '@modelcontextprotocol/sdk',
  'pg',
  'nats',
  'playwright-core',
];

await build({
  absWorkingDir: root,
  entryPoints: { main: 'src/cli/main.ts' },
  outdir: 'dist/bundle',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: LOADED_LATER.flatMap((name) => [name, `${name}/*`]),
  // Bundled CommonJS packages (fastify, pino, …) call require() on Node's built-ins.
  banner: { js: "import { createRequire as berthCreateRequire } from 'node:module'; const require = berthCreateRequire(import.meta.url);" },
  // Whitespace and syntax only: names stay, so a stack trace in the log still says where it was.
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  legalComments: 'linked',
  logLevel: 'warning',
});
