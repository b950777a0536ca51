import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { packageFile } from '../package-files.js';

/**
 * The browser app `npm ci` builds into dist/web (web/vite.config.mjs), held in memory: a few
 * files, all hashed by the build, none of them secret. Found next to the compiled daemon
 * (dist/http → dist/web) or, when the daemon runs from source, in the build folder of the checkout.
 */
export interface WebApp {
  readonly index: Buffer;
  /** `gzip`: the build's compressed copy (`<name>.gz`), when it made one. */
  readonly assets: ReadonlyMap<string, { readonly body: Buffer; readonly type: string; readonly gzip?: Buffer }>;
}

/** The page's Content-Security-Policy: its own scripts, styles and API only; images from the file browser as blobs. */
export const WEB_APP_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' blob:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};


/**
 * The built app, or null when none was built (the daemon then keeps its small landing page).
 * Its files are read on the first request for one, not while the daemon starts.
 */
export function findWebApp(): (() => WebApp) | null {
  const dir = packageFile('dist/web');
  const indexFile = join(dir, 'index.html');
  if (!existsSync(indexFile)) return null;
  let loaded: WebApp | undefined;
  return () => (loaded ??= readWebApp(dir, indexFile));
}

function readWebApp(dir: string, indexFile: string): WebApp {
  const assets = new Map<string, { body: Buffer; type: string; gzip?: Buffer }>();
  const assetDir = join(dir, 'assets');
  if (existsSync(assetDir)) {
    const names = new Set(readdirSync(assetDir));
    for (const name of names) {
      const type = TYPES[extname(name)];
      if (!type) continue;
      const gzip = names.has(`${name}.gz`) ? readFileSync(join(assetDir, `${name}.gz`)) : undefined;
      assets.set(name, { body: readFileSync(join(assetDir, name)), type, ...(gzip ? { gzip } : {}) });
    }
  }
  return { index: readFileSync(indexFile), assets };
}

/** Does an Accept-Encoding header take gzip (named, and not with q=0)? */
export function takesGzip(acceptEncoding: string | undefined): boolean {
  return (acceptEncoding ?? '').split(',').some((part) => {
    const [name, ...params] = part.split(';');
    return name!.trim().toLowerCase() === 'gzip' && !params.some((p) => /^\s*q\s*=\s*0(\.0*)?\s*$/.test(p));
  });
}

/**
 * May this request be answered without a token? Only the app's own files: the page and its hashed
 * assets carry nothing secret, and the page must load to show its login screen. Everything the
 * page then asks for goes through the owner token like any client.
 */
export function isPublicWebRequest(method: string, path: string, accept: string | undefined): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false;
  if (path.startsWith('/assets/')) return true;
  return path === '/' && /\btext\/html\b/.test(accept ?? '');
}
