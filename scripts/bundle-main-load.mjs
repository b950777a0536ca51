// Runtime half of scripts/bundle-main.mjs, bundled into the small ESM main.js it writes: compiles
// main.body.cjs (the command's own start path) with the V8 code cache written beside it at build time.
// A cache V8 rejects (another Node, other flags, a damaged file) or a missing one means a plain compile.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import { CACHE_SUFFIX, readCache } from './bundle-vendor-load.mjs';

export const BODY_FILE = 'main.body.cjs';

/** The parameters main.body.cjs's code is compiled as the body of (the build writes code that uses these names). */
export const BODY_PARAMS = ['exports', 'require', 'module', '__berthImportMeta', '__berthImport'];

/**
 * Runs main.body.cjs from beside `mainUrl` (main.js's import.meta.url). `imported` holds, by specifier,
 * the modules main.js imported for it (ES modules, so they load as before: once, in order, through the
 * module loader); any other require() is Node's. `load` is import() as main.js would call it.
 * Returns the body's exports, the compiled script (for writing a new cache) and whether V8 took the cache.
 */
export function loadMainBody(mainUrl, imported, load) {
  const file = new URL(`./${BODY_FILE}`, mainUrl);
  const cachedData = readCache(new URL(`./${BODY_FILE}${CACHE_SUFFIX}`, mainUrl));
  // Strict, as the ES module it was built from.
  const script = new Script(`(function (${BODY_PARAMS.join(', ')}) {'use strict';${readFileSync(file, 'utf8')}\n})`, {
    filename: fileURLToPath(file),
    cachedData,
  });
  const nodeRequire = createRequire(mainUrl);
  const views = new Map(Object.entries(imported).map(([specifier, namespace]) => [specifier, commonJsView(namespace)]));
  // With Node's require.resolve, .cache and .main, as the bundled packages had before.
  const require = Object.assign((specifier) => views.get(specifier) ?? nodeRequire(specifier), nodeRequire);
  const module = { exports: {} };
  script.runInThisContext()(module.exports, require, module, { url: mainUrl }, load);
  return { exports: module.exports, script, cacheRejected: cachedData === undefined ? undefined : script.cachedDataRejected };
}

/**
 * An ES module's namespace as esbuild's CommonJS output reads an import: marked __esModule so `default`
 * is the default export, and reading through to the namespace itself (its prototype), so a binding the
 * module assigns later is still seen. Not a getter per name: the body reads its chunks' exports on every
 * call of a hot path (tens a gateway call), and one shared getter's keyed read cost V8 about 80 ns each,
 * a read through the prototype about 10. Only `__esModule` is an own key, so nothing may copy the view's
 * own names (esbuild's __reExport): scripts/bundle-main.mjs refuses a body that does.
 */
function commonJsView(namespace) {
  return Object.create(namespace, { __esModule: { value: true } });
}
