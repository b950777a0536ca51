import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileSchema } from '../protocol/tools/arguments.js';
import { POLICIES, type JsonSchema, type Policy } from '../protocol/tools/types.js';
import { HOME_CONFIG_FILE } from './model-services.js';

/**
 * MCP servers whose tools Berth's agents may use (issue 15), in the shape the
 * ecosystem uses — `{"mcpServers": {"<name>": {…}}}` — from `$BERTH_HOME/config.json`
 * (every local workspace) and from a workspace's own `.berth/mcp.json` (that
 * workspace; its stdio servers run confined like the workspace's commands).
 *
 *     { "mcpServers": {
 *         "notes":  { "command": "node", "args": ["notes-server.js"], "env": { "NOTES_DIR": "/tmp/n" } },
 *         "issues": { "url": "https://mcp.example/issues", "headers": { "Authorization": "Bearer …" },
 *                     "policy": "read", "toolPolicies": { "close_issue": "critical" } } } }
 *
 * A tool's policy comes from its MCP annotations (`readOnlyHint` → read,
 * `destructiveHint` → critical, else write); `policy` sets the server's
 * default instead and `toolPolicies` one tool's.
 */
export type McpServerSpec = McpStdioSpec | McpHttpSpec;

interface McpCommon {
  readonly name: string;
  /** Where the spec came from: the home config, or the workspace's own file (run confined). */
  readonly origin: 'home' | 'workspace';
  readonly policy?: Policy;
  readonly toolPolicies?: Readonly<Record<string, Policy>>;
}

export interface McpStdioSpec extends McpCommon {
  readonly transport: 'stdio';
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

export interface McpHttpSpec extends McpCommon {
  readonly transport: 'http';
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** The file a workspace names its own servers in, relative to its root. */
export const WORKSPACE_MCP_FILE = '.berth/mcp.json';

const NAME = '^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$';
const STRINGS = { type: 'object', maxProperties: 256, additionalProperties: { type: 'string', maxLength: 65536 } } as const;
const POLICY = { enum: [...POLICIES] } as const;
const COMMON = { policy: POLICY, toolPolicies: { type: 'object', maxProperties: 1000, additionalProperties: POLICY } } as const;

const SCHEMA = {
  type: 'object',
  maxProperties: 64,
  propertyNames: { pattern: NAME },
  additionalProperties: {
    oneOf: [
      {
        type: 'object',
        additionalProperties: false,
        required: ['command'],
        properties: {
          type: { const: 'stdio' },
          command: { type: 'string', minLength: 1, maxLength: 4096 },
          args: { type: 'array', maxItems: 256, items: { type: 'string', maxLength: 65536 } },
          env: STRINGS,
          cwd: { type: 'string', maxLength: 4096 },
          ...COMMON,
        },
      },
      {
        type: 'object',
        additionalProperties: false,
        required: ['url'],
        properties: {
          type: { enum: ['http', 'streamable-http', 'streamableHttp'] },
          url: { type: 'string', pattern: '^https?://', maxLength: 4096 },
          headers: STRINGS,
          ...COMMON,
        },
      },
    ],
  },
} as const;


export class McpConfigError extends Error {
  override name = 'ConfigError';
}

/** Checks a `mcpServers` object given directly or read from a file; `where` names it in the message. */
export function checkMcpServers(value: unknown, where: string, origin: McpServerSpec['origin']): McpServerSpec[] {
  const validate = compileSchema(SCHEMA as JsonSchema, 'config schema');
  if (!validate(value)) {
    const e = validate.errors![0]!;
    const at = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
    throw new McpConfigError(`${where}: mcpServers${at ? `.${at}` : ''} ${e.message ?? 'is invalid'} (a server has either "command" or "url")`);
  }
  return Object.entries(value as Record<string, Record<string, unknown>>).map(([name, raw]) => specOf(name, raw, origin));
}

function specOf(name: string, raw: Record<string, unknown>, origin: McpServerSpec['origin']): McpServerSpec {
  const common = {
    name,
    origin,
    ...(raw.policy !== undefined ? { policy: raw.policy as Policy } : {}),
    ...(raw.toolPolicies !== undefined ? { toolPolicies: raw.toolPolicies as Record<string, Policy> } : {}),
  };
  if (typeof raw.url === 'string') {
    return { ...common, transport: 'http', url: raw.url, headers: (raw.headers as Record<string, string>) ?? {} };
  }
  return {
    ...common,
    transport: 'stdio',
    command: raw.command as string,
    args: (raw.args as string[]) ?? [],
    env: (raw.env as Record<string, string>) ?? {},
    ...(typeof raw.cwd === 'string' ? { cwd: raw.cwd } : {}),
  };
}

/** The `mcpServers` of a JSON file; none when the file or the section is missing. */
export function loadMcpServersFile(file: string, origin: McpServerSpec['origin']): McpServerSpec[] {
  if (!existsSync(file)) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new McpConfigError(`${file} is not valid JSON: ${(err as Error).message}`);
  }
  const section = (parsed as { mcpServers?: unknown } | null)?.mcpServers;
  return section === undefined ? [] : checkMcpServers(section, file, origin);
}

/** The servers of `$home/config.json`. */
export function loadHomeMcpServers(home: string): McpServerSpec[] {
  return loadMcpServersFile(join(home, HOME_CONFIG_FILE), 'home');
}

/** The servers a workspace names in its own `.berth/mcp.json`. */
export function loadWorkspaceMcpServers(root: string): McpServerSpec[] {
  return loadMcpServersFile(join(root, WORKSPACE_MCP_FILE), 'workspace');
}
