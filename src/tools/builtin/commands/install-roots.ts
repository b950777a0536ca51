import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';

/**
 * Where a program that is not a shell command lives — an external agent, an
 * MCP server — so its sandbox can see it read-only: the sandbox covers `/tmp`
 * and the hidden paths, and a program installed there would find neither
 * itself nor its modules. For each absolute path among the command and its
 * arguments that exists: the folder above the outermost `node_modules` on its
 * way (an npm install: the package and its dependencies), else the nearest
 * folder with a `package.json` (a project and its modules), else its folder.
 */
export function installRoots(argv: readonly string[]): string[] {
  const roots = new Set<string>();
  for (const arg of argv) {
    if (!isAbsolute(arg) || !existsSync(arg)) continue;
    const real = realpathSync(arg);
    roots.add(outermostInstall(real) ?? nearestPackage(dirname(real)) ?? dirname(real));
  }
  return [...roots].filter((r) => r !== '/');
}

function outermostInstall(path: string): string | undefined {
  let found: string | undefined;
  for (let dir = dirname(path); dir !== dirname(dir); dir = dirname(dir)) {
    if (basename(dir) === 'node_modules') found = dirname(dir);
  }
  return found;
}

function nearestPackage(start: string): string | undefined {
  for (let dir = start; dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
  }
  return undefined;
}
