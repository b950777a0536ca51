// Runtime half of scripts/bundle-vendor.mjs, bundled into main.js: loads dist/bundle/vendor.cjs with
// the V8 code cache written beside it at build time. Node 20 has no compile cache of its own
// (module.enableCompileCache came in 22), so the file is compiled here through vm.Script, which takes
// one. V8 checks the cache against the source, its own version and its flags: a cache it rejects
// (another Node, other flags, a damaged file) is ignored and the source compiled as usual.
import { readFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script, constants } from 'node:vm';

export const VENDOR_FILE = 'vendor.cjs';
export const CACHE_SUFFIX = '.cache';

let loaded;

/** The packages of vendor.cjs, by name; loaded once, on the first ask. */
export function vendorPackages() {
  return (loaded ??= loadVendor(fileURLToPath(new URL(`./${VENDOR_FILE}`, import.meta.url))).exports);
}

/**
 * Runs a CommonJS file as require() would, compiled with the code cache at `file` + CACHE_SUFFIX
 * when there is one. Returns its exports and the compiled script (for writing a new cache).
 */
export function loadVendor(file) {
  const cachedData = readCache(file + CACHE_SUFFIX);
  const script = new Script(Module.wrap(readFileSync(file, 'utf8')), {
    filename: file,
    cachedData,
    importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const module = { exports: {} };
  script.runInThisContext().call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  return { exports: module.exports, script, cacheRejected: cachedData === undefined ? undefined : script.cachedDataRejected };
}

/** The bytes of a code cache, or undefined when there is none. */
export function readCache(path) {
  try {
    return readFileSync(path);
  } catch {
    // No cache (not built, or removed): a plain compile.
    return undefined;
  }
}
