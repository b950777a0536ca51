import type { WorkspaceSettings } from '../../../config/workspace-settings.js';

/**
 * The daemon's variables a command may see without being told: where programs
 * are, who and where the user is, language and terminal. An allow-list, not a
 * deny-list: the daemon's environment holds secrets under names nobody can
 * enumerate in advance (`OPENAI_API_KEY`, `AWS_SECRET_ACCESS_KEY`,
 * `GITHUB_TOKEN`, `BERTH_TOKEN` …), and an agent's command must see none of
 * them unless its workspace passes them on (issue 16).
 */
export const PASSED_ENV_NAMES: readonly string[] = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'TERM',
  'TZ',
  'TMPDIR',
  'COLORTERM',
  'NO_COLOR',
];
const PASSED_ENV_PREFIX = 'LC_';

/** Berth's own variables never pass, not even when a workspace names them. */
function isBerthName(name: string): boolean {
  return name.startsWith('BERTH_');
}

/**
 * The environment of a command: the harmless variables of `base`, the names
 * the workspace passes on (`passEnv`), the values it sets (`env`), and pagers
 * that do not wait for a keypress nobody can send.
 */
export function commandEnv(base: NodeJS.ProcessEnv = process.env, settings: WorkspaceSettings = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(base)) {
    if (value !== undefined && (PASSED_ENV_NAMES.includes(key) || key.startsWith(PASSED_ENV_PREFIX))) env[key] = value;
  }
  for (const name of settings.passEnv ?? []) {
    const value = base[name];
    if (value !== undefined && !isBerthName(name)) env[name] = value;
  }
  for (const [name, value] of Object.entries(settings.env ?? {})) {
    if (!isBerthName(name)) env[name] = value;
  }
  env.PAGER = 'cat';
  env.GIT_PAGER = 'cat';
  return env;
}
