import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A well-known MCP server from the npm registry for the MCP tests (issue 15): the reference
 * "memory" server, pinned, installed on demand into test/.cache (git-ignored), never a project
 * dependency. Returns the path of its entry script.
 */
export const MEMORY_SERVER = '@modelcontextprotocol/server-memory';
export const MEMORY_SERVER_VERSION = '2026.8.31';

const cacheRoot = new URL('../.cache/', import.meta.url).pathname;

export function ensureMemoryServer(): string {
  const prefix = join(cacheRoot, 'mcp-memory', MEMORY_SERVER_VERSION);
  const entry = join(prefix, 'node_modules', ...MEMORY_SERVER.split('/'), 'dist', 'index.js');
  if (existsSync(entry)) return entry;
  mkdirSync(prefix, { recursive: true });
  const install = spawnSync(
    'npm',
    ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', '--ignore-scripts', `${MEMORY_SERVER}@${MEMORY_SERVER_VERSION}`],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );
  if (install.status !== 0 || !existsSync(entry)) {
    throw new Error(`could not install ${MEMORY_SERVER}@${MEMORY_SERVER_VERSION}: ${install.stderr.slice(-2000)}`);
  }
  return entry;
}
