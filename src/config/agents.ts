import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import type { ValidateFunction } from 'ajv';
import { compileSchema } from '../protocol/tools/arguments.js';
import type { JsonSchema } from '../protocol/tools/types.js';
import { readHomeConfig } from './model-services.js';

/**
 * External agents (issue 12): programs that speak the Agent Client Protocol
 * over stdio, configured like model services. They come from
 * `$BERTH_HOME/config.json` (`agents`) and from built-in presets, which are
 * offered only when their command is on PATH (or given with `--agent-command`).
 */

/** Where the agent process starts: in the session's workspace, or in its private HOME. */
export type AgentCwdMode = 'workspace' | 'home';

export interface AgentSpec {
  /** Also the model-id prefix clients pick it by: `<agentId>/<modelId>`. */
  readonly id: string;
  /** An absolute path, or a name looked up on PATH when the daemon starts. */
  readonly command: string;
  readonly args: readonly string[];
  /** Variables the agent gets on top of the scrubbed environment (never `BERTH_*`). */
  readonly env: Readonly<Record<string, string>>;
  readonly cwdMode: AgentCwdMode;
}

/** Everything about external agents the daemon starts with. */
export interface AgentSettings {
  readonly agents: readonly AgentSpec[];
  /** `--agent`: the agent a session runs when it names no model service; null keeps the built-in agent. */
  readonly defaultAgent: string | null;
  /** `--agent-start-timeout-ms`: spawn to `session/new` answered; past it `POST /session` answers 504 `init_timeout`. */
  readonly startTimeoutMs: number;
  /** `--agent-memory-mb`: the resident memory all agent processes may use before new agent sessions are refused; null: no budget. */
  readonly memoryMb: number | null;
  /** `--agent-idle-ms`: a session this long without a turn leaves its agent process, which stops when none is left. */
  readonly idleMs: number;
  /** `--agent-max-message-bytes`: the longest line an agent may send; a longer one stops its process (a broken protocol). */
  readonly maxMessageBytes: number;
}

/** What `berth serve` passes in; resolved against the home file and PATH. */
export interface AgentFlags {
  readonly agent?: string;
  readonly agentCommand?: string;
  readonly startTimeoutMs?: number;
  readonly memoryMb?: number;
  readonly idleMs?: number;
  readonly maxMessageBytes?: number;
}

/** One `qwen --acp` start measured about 1 s; a loaded machine needs a margin (issue 12). */
export const DEFAULT_AGENT_START_TIMEOUT_MS = 30_000;

/** An agent process costs 230-290 MiB (qwen 0.24.4): ten quiet minutes is long enough to come back to a tab, short enough not to hold memory all day. */
export const DEFAULT_AGENT_IDLE_MS = 10 * 60_000;

/** One ACP line: 16 MiB holds a whole file in `fs/write_text_file` (the SDK's own default is 32 MiB). */
export const DEFAULT_AGENT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/** The smallest message bound: an `initialize` answer with its capabilities must fit. */
const MIN_AGENT_MAX_MESSAGE_BYTES = 4096;

/** The ACP agents people run today, by the command each installs. */
export const AGENT_PRESETS: readonly AgentSpec[] = [
  { id: 'qwen', command: 'qwen', args: ['--acp'], env: {}, cwdMode: 'workspace' },
  { id: 'gemini', command: 'gemini', args: ['--experimental-acp'], env: {}, cwdMode: 'workspace' },
  { id: 'claude-code', command: 'claude-code-acp', args: [], env: {}, cwdMode: 'workspace' },
  { id: 'codex', command: 'codex-acp', args: [], env: {}, cwdMode: 'workspace' },
  { id: 'opencode', command: 'opencode', args: ['acp'], env: {}, cwdMode: 'workspace' },
];

const AGENT_ID_PATTERN = '^[A-Za-z0-9._-]{1,64}$';

const AGENTS_SCHEMA = {
  type: 'array',
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'command'],
    properties: {
      id: { type: 'string', pattern: AGENT_ID_PATTERN },
      command: { type: 'string', minLength: 1 },
      args: { type: 'array', items: { type: 'string' } },
      env: { type: 'object', additionalProperties: { type: 'string' } },
      cwdMode: { enum: ['workspace', 'home'] },
    },
  },
} as const;

type AgentEntry = { id: string; command: string; args?: string[]; env?: Record<string, string>; cwdMode?: AgentCwdMode };
const agentsValidator = (): ValidateFunction<AgentEntry[]> => compileSchema<AgentEntry[]>(AGENTS_SCHEMA as JsonSchema, 'config schema');

/** The file's `agents`, checked; compiled only for a file that has them (the compile, with Ajv's meta-schema, was a tenth of the start-up's CPU before the port opened). */
function checkedEntries(listed: unknown, file: string): AgentEntry[] {
  const validateAgents = agentsValidator();
  if (validateAgents(listed)) return listed;
  const e = validateAgents.errors![0]!;
  throw new AgentConfigError(`${file}: agents${e.instancePath.replace(/\//g, '.')} ${e.message ?? 'is invalid'}`);
}

export class AgentConfigError extends Error {
  override name = 'ConfigError';
}

/** The first executable file named `command` on `path`, or null. */
export function findOnPath(command: string, path: string | undefined): string | null {
  if (isAbsolute(command)) return isExecutable(command) ? command : null;
  for (const dir of (path ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, command);
    if (isExecutable(candidate)) return candidate;
  }
  return null;
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The agents of this daemon: the file's entries, then each preset whose
 * command is installed (a file entry with a preset's id replaces it).
 * `--agent-command` gives the command of the `--agent` one, preset or not.
 */
export function loadAgentSettings(home: string, env: NodeJS.ProcessEnv, flags: AgentFlags = {}): AgentSettings {
  const { file, config } = readHomeConfig(home);
  const listed = (config as { agents?: unknown }).agents;
  const raw = listed === undefined ? [] : checkedEntries(listed, file);
  const fromFile: AgentSpec[] = raw.map((a) => ({ id: a.id, command: a.command, args: a.args ?? [], env: a.env ?? {}, cwdMode: a.cwdMode ?? 'workspace' }));
  const ids = new Set(fromFile.map((a) => a.id));
  if (ids.size !== fromFile.length) throw new AgentConfigError(`${file}: agents lists an id twice`);
  let agents = [...fromFile, ...AGENT_PRESETS.filter((p) => !ids.has(p.id))];
  if (flags.agentCommand !== undefined) {
    if (flags.agent === undefined) throw new AgentConfigError('--agent-command needs --agent ID: the agent it is the command of');
    const known = agents.find((a) => a.id === flags.agent);
    const given: AgentSpec = known ? { ...known, command: flags.agentCommand } : { id: flags.agent, command: flags.agentCommand, args: [], env: {}, cwdMode: 'workspace' };
    agents = [given, ...agents.filter((a) => a.id !== flags.agent)];
  }
  // A configured agent stays listed even when its command is missing: sessions on it say which command is absent.
  const installed = agents.filter((a) => ids.has(a.id) || a.id === flags.agent || findOnPath(a.command, env.PATH) !== null);
  return checkAgentSettings(
    {
      agents: installed,
      defaultAgent: flags.agent ?? null,
      startTimeoutMs: flags.startTimeoutMs ?? DEFAULT_AGENT_START_TIMEOUT_MS,
      memoryMb: flags.memoryMb ?? null,
      idleMs: flags.idleMs ?? DEFAULT_AGENT_IDLE_MS,
      maxMessageBytes: flags.maxMessageBytes ?? DEFAULT_AGENT_MAX_MESSAGE_BYTES,
    },
    file,
  );
}

/** Rules across fields: a default agent that exists, bounds in range. */
export function checkAgentSettings(s: AgentSettings, where: string): AgentSettings {
  for (const a of s.agents) {
    if (!new RegExp(AGENT_ID_PATTERN).test(a.id)) throw new AgentConfigError(`${where}: agent id "${a.id}" must match ${AGENT_ID_PATTERN}`);
    if (Object.keys(a.env).some((k) => k.startsWith('BERTH_'))) throw new AgentConfigError(`${where}: agent ${a.id} may not be given BERTH_* variables`);
  }
  if (s.defaultAgent !== null && !s.agents.some((a) => a.id === s.defaultAgent)) {
    throw new AgentConfigError(`--agent ${s.defaultAgent}: no such agent (configured or installed: ${s.agents.map((a) => a.id).join(', ') || 'none'})`);
  }
  if (!Number.isInteger(s.startTimeoutMs) || s.startTimeoutMs < 1 || s.startTimeoutMs > 600_000) {
    throw new AgentConfigError('--agent-start-timeout-ms must be an integer from 1 to 600000');
  }
  if (s.memoryMb !== null && (!Number.isInteger(s.memoryMb) || s.memoryMb < 1)) throw new AgentConfigError('--agent-memory-mb must be a positive integer');
  if (!Number.isInteger(s.idleMs) || s.idleMs < 1 || s.idleMs > 7 * 24 * 3_600_000) throw new AgentConfigError('--agent-idle-ms must be an integer from 1 to 604800000 (a week)');
  if (!Number.isInteger(s.maxMessageBytes) || s.maxMessageBytes < MIN_AGENT_MAX_MESSAGE_BYTES || s.maxMessageBytes > 1024 * 1024 * 1024) {
    throw new AgentConfigError(`--agent-max-message-bytes must be an integer from ${MIN_AGENT_MAX_MESSAGE_BYTES} to 1073741824`);
  }
  return s;
}

export const NO_AGENTS: AgentSettings = {
  agents: [],
  defaultAgent: null,
  startTimeoutMs: DEFAULT_AGENT_START_TIMEOUT_MS,
  memoryMb: null,
  idleMs: DEFAULT_AGENT_IDLE_MS,
  maxMessageBytes: DEFAULT_AGENT_MAX_MESSAGE_BYTES,
};
