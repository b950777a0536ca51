import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileSchema } from '../protocol/tools/arguments.js';
import type { JsonSchema } from '../protocol/tools/types.js';
import { HOME_CONFIG_FILE } from './model-services.js';

/**
 * What the commands of one local workspace get beyond the scrubbed defaults
 * (issue 16). Kept in `$BERTH_HOME/config.json` under `workspaces`, keyed by
 * the workspace root as given to `--workspace` (absolute) or by its id:
 *
 *     { "workspaces": { "/src/parser": { "passEnv": ["OPENAI_API_KEY"], "env": { "CI": "1" }, "network": false } } }
 *
 * - `passEnv`: names copied from the daemon's own environment (a model key a
 *   test suite needs, say); nothing else of the daemon's environment passes
 *   except a short list of harmless ones (PATH, HOME, LANG, …).
 * - `env`: values set for the workspace's commands.
 * - `network`: false runs its commands without any network (with a sandbox),
 *   and its tabs say `network: false` (seed 004's network rule). Default true.
 */
export interface WorkspaceSettings {
  readonly passEnv?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly network?: boolean;
  /**
   * Calls that run without asking in this workspace (issue 14): a tool name and a `*` pattern
   * over its main argument (`command` for `workspace_exec`, `path` for file tools), e.g.
   * `{ "tool": "workspace_exec", "pattern": "npm test*" }`. The match is named in the
   * decision's reason. A command line matches only when every one of its parts does.
   */
  readonly allow?: readonly AllowRule[];
}

export interface AllowRule {
  readonly tool: string;
  readonly pattern: string;
}

const ENV_NAME = '^[A-Za-z_][A-Za-z0-9_]*$';

const SCHEMA = {
  type: 'object',
  additionalProperties: {
    type: 'object',
    additionalProperties: false,
    properties: {
      passEnv: { type: 'array', maxItems: 256, items: { type: 'string', pattern: ENV_NAME } },
      env: { type: 'object', maxProperties: 256, propertyNames: { pattern: ENV_NAME }, additionalProperties: { type: 'string', maxLength: 65536 } },
      network: { type: 'boolean' },
      allow: {
        type: 'array',
        maxItems: 256,
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['tool', 'pattern'],
          properties: { tool: { type: 'string', minLength: 1, maxLength: 256 }, pattern: { type: 'string', minLength: 1, maxLength: 4096 } },
        },
      },
    },
  },
} as const;


export class WorkspaceSettingsError extends Error {
  override name = 'ConfigError';
}

/** Checks settings given directly (tests, embedders) or read from the home file. */
export function checkWorkspaceSettings(value: unknown, where: string): Readonly<Record<string, WorkspaceSettings>> {
  const validate = compileSchema<Record<string, WorkspaceSettings>>(SCHEMA as JsonSchema, 'config schema');
  if (!validate(value)) {
    const e = validate.errors![0]!;
    throw new WorkspaceSettingsError(`${where}: workspaces${e.instancePath.replace(/\//g, '.')} ${e.message ?? 'is invalid'}`);
  }
  return value;
}

/** The `workspaces` section of `$home/config.json`; none when the file or the section is missing. */
export function loadWorkspaceSettings(home: string): Readonly<Record<string, WorkspaceSettings>> {
  const file = join(home, HOME_CONFIG_FILE);
  if (!existsSync(file)) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new WorkspaceSettingsError(`${file} is not valid JSON: ${(err as Error).message}`);
  }
  const section = (parsed as { workspaces?: unknown } | null)?.workspaces;
  return section === undefined ? {} : checkWorkspaceSettings(section, file);
}
