import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The files Berth ships beside its code (`contract/`, `dist/web/`, `package.json`),
 * found from the package's root. The code runs from `src/` (tests, through tsx),
 * from `dist/<folder>/` (what tsc emits) and from `dist/bundle/` (what `berth`
 * runs), each at a different depth, so a path relative to one file's own URL
 * would be right in one of them only: the root is the nearest folder above this
 * file holding Berth's package.json.
 */
let root: string | undefined;

function packageRoot(): string {
  if (root !== undefined) return root;
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'berth') {
      root = dir;
      return dir;
    }
    if (dirname(dir) === dir) throw new Error('Berth cannot find its own package.json above its code');
  }
}

/** The absolute path of a file shipped with Berth, named from the package root (e.g. `contract/openapi.json`). */
export function packageFile(path: string): string {
  return join(packageRoot(), path);
}

let version: string | undefined;

/** Berth's version, from its package.json. */
export function packageVersion(): string {
  version ??= (JSON.parse(readFileSync(packageFile('package.json'), 'utf8')) as { version: string }).version;
  return version;
}
