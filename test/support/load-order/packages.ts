import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Which packages a `load <url>` line of the preload's log brought in. A package
 * loads either as its own files (`…/node_modules/<name>/…`) or inside a chunk of
 * the bundle `berth` runs from (scripts/bundle.mjs), whose sources esbuild's
 * metafile (dist/bundle/meta.json) lists: both count, so a test can ask "did
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
      const url = pathToFileURL(join(repoRoot, out)).href;
      chunks.set(url, new Set(Object.keys(inputs).flatMap((input) => packageOf(input) ?? [])));
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

function packageOf(path: string): string | undefined {
  return /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path)?.[1];
}
