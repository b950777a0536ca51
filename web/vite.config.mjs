// Builds the browser app into dist/web, which `berth serve` serves at `/` (npm ci runs this through
// the prepare script). Everything is bundled: the page fetches nothing from another origin.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { defineConfig } from 'vite';

/**
 * The app proper is a chunk of its own (web/src/main.tsx imports it), so the small entry can
 * start a session's load before the big part has compiled; these links have the browser fetch
 * that chunk and the ones it imports beside the entry instead of after it.
 */
const preloadApp = {
  name: 'berth-preload-app',
  transformIndexHtml: {
    order: 'post',
    handler(_html, ctx) {
      const bundle = ctx.bundle ?? {};
      const app = Object.values(bundle).find((c) => c.type === 'chunk' && c.isDynamicEntry && c.name === 'mount');
      if (!app) return [];
      // The chunks the app imports (the UI library) too, and those first; then the Markdown
      // renderer, which the app imports only after its first frame (web/src/Markdown.tsx): fetched
      // and compiled while the session's load is on its way, run when the answers are on screen.
      const shared = new Set();
      const add = (name) => {
        const chunk = bundle[name];
        if (chunk?.type !== 'chunk' || chunk.isEntry || shared.has(name)) return;
        chunk.imports.forEach(add);
        shared.add(name);
      };
      app.imports.forEach(add);
      shared.add(app.fileName);
      const markdown = Object.values(bundle).find((c) => c.type === 'chunk' && c.isDynamicEntry && c.name === 'markdown');
      if (markdown) add(markdown.fileName);
      return [...shared].map((name) => ({ tag: 'link', attrs: { rel: 'modulepreload', crossorigin: true, href: `/${name}` }, injectTo: 'head' }));
    },
  },
};

/**
 * A gzip copy beside each script and style sheet, which the daemon sends to browsers that take
 * gzip (src/http/web-app.ts). Made from the files as written: Vite still rewrites chunks after
 * the bundle is generated.
 */
const gzipCopies = {
  name: 'berth-gzip-copies',
  apply: 'build',
  writeBundle: {
    order: 'post',
    handler(options, bundle) {
      for (const name of Object.keys(bundle)) {
        if (!/\.(js|css)$/.test(name)) continue;
        const file = join(options.dir, name);
        writeFileSync(`${file}.gz`, gzipSync(readFileSync(file), { level: 9 }));
      }
    },
  },
};

export default defineConfig({
  plugins: [preloadApp, gzipCopies],
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // No inlined assets: the Content-Security-Policy allows files from this origin only.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
});
