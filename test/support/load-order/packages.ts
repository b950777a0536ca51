import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Which packages a `load <url>` line of the preload's log brought in. A package
 * loads either as its own files (`…/node_modules/<name>/…`) or inside a chunk of
 * the bundle `berth` runs from (scripts/bundle.mjs), whose sources esbuild's
 * metafile (dist/bundle/meta.json) lists (vendor.cjs's packages count as main.js's): both count, so a test can ask "did
 * the openai package load yet?" whichever way the daemon was built.
 */
export function packageLoads(repoRoot: string): (line: string) => Set<string> {
  const bundleDir = join(repoRoot, 'dist/bundle');
  const chunks = new Map<string, Set<string>>();
  try {
    const meta = JSON.parse(readFileSync(join(bundleDir, 'meta.json'), 'utf8')) as {
      outputs: Record<string, { inputs: Record<string, unknown> }>;
    };
    for (const [out, { inputs }] of Object.entries(meta.outputs)) {
      // vendor.cjs is read and compiled by main.js's own code, not the module loader, so it has no
      // `load` line; main.js requires it as it starts, so main.js's line brings its packages too.
      // (So is main.js's code itself, main.body.cjs, which the metafile still lists as main.js's.)
      const url = pathToFileURL(join(repoRoot, out === VENDOR_OUTPUT ? MAIN_OUTPUT : out)).href;
      const packages = chunks.get(url) ?? new Set<string>();
      for (const input of Object.keys(inputs)) {
        const name = packageOf(input);
        if (name) packages.add(name);
      }
      chunks.set(url, packages);
    }
  } catch {
    // No bundle built: only package files can be seen.
  }
  return (line) => {
    const url = line.replace(/^load /, '');
    const own = packageOf(url);
    return own ? new Set([own]) : (chunks.get(url) ?? new Set());
  };
}

const MAIN_OUTPUT = 'dist/bundle/main.js';
const VENDOR_OUTPUT = 'dist/bundle/vendor.cjs';

function packageOf(path: string): string | undefined {
  return /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path)?.[1];
}
