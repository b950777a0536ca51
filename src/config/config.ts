import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { DEFAULT_FRAME_BYTES, MAX_INTENTION_CHARS } from '../protocol/limits.js';
import * as L from './defaults.js';
import { AgentConfigError, checkAgentSettings, loadAgentSettings, type AgentFlags, type AgentSettings } from './agents.js';
import { checkHttpLimits, DEFAULT_HTTP_LIMITS, type HttpLimits } from './http-limits.js';
import { loadHomeMcpServers, McpConfigError, type McpServerSpec } from './mcp-servers.js';
import { checkModelServices, loadModelServices, ModelConfigError, type ModelServiceSpec } from './model-services.js';
import { checkWorkspaceSettings, loadWorkspaceSettings, WorkspaceSettingsError, type WorkspaceSettings } from './workspace-settings.js';
import { resolveBusUrl } from './bus.js';
import { resolveStoreChoice, StoreConfigError, type StoreChoice } from './store.js';
import { ClusterConfigError, resolveClusterChoice, type ClusterChoice } from './cluster.js';

/** One rate-limit tier: at most `max` requests per `windowMs`, counted per client id (or remote address). */
export interface RateLimitTier {
  readonly tier: 'prompt' | 'session' | 'read' | 'default';
  readonly max: number;
  readonly windowMs: number;
}

export type PermissionTimeoutOutcome = 'reject' | 'allow' | 'cancel';

/** Everything the daemon needs to start, validated once. Flags, env and defaults all end up here. */
export interface Config {
  readonly port: number;
  readonly hostname: string;
  /** The owner token for the client API, or null on an anonymous loopback bind. */
  readonly token: string | null;
  readonly requireAuth: boolean;
  /** Local workspace roots as given (resolved to absolute); the first is primary. */
  readonly workspaces: readonly string[];
  /** Remote workspace ids served through gateway channels. */
  readonly remoteWorkspaces: readonly string[];
  /**
   * The launch intention B sends with every call to a remote workspace (docs/gateway.md
   * `intention`; the owner pins the same text). A workspace without one sends its id.
   */
  readonly remoteIntentions: Readonly<Record<string, string>>;
  /**
   * Roots under which a session's `cwd` registers a new local workspace on
   * first use (`--allow-workspace-root`, an explicit opt-in; issue 11). Empty:
   * only the workspaces given at start-up are served.
   */
  readonly allowWorkspaceRoots: readonly string[];
  /** `--no-web`: `/` keeps the small page saying what this is, even once a web app is built in. */
  readonly web: boolean;
  readonly home: string;
  /** Where durable state lives: SQLite in the home folder, or a PostgreSQL server (`--store`, BERTH_STORE_URL; docs/store.md). */
  readonly store: StoreChoice;
  /** The NATS server shared with the other nodes (`--bus`, BERTH_BUS_URL; docs/cluster-bus.md), or null for one daemon alone. */
  readonly bus: string | null;
  /** This daemon as one node of several on a PostgreSQL store (`--node-id`, BERTH_NODE_ID; docs/cluster-leases.md), or null. */
  readonly cluster: ClusterChoice | null;
  readonly allowOrigins: readonly string[];
  readonly logLevel: string;

  readonly maxSessions: number | null;
  readonly maxPendingPromptsPerSession: number;
  readonly rateLimits: readonly RateLimitTier[];
  readonly promptDeadlineMs: number | null;
  readonly eventRingSize: number;
  readonly permissionTimeoutMs: number | null;
  readonly permissionTimeoutOutcome: PermissionTimeoutOutcome;
  readonly sessionIdleTimeoutMs: number;
  readonly sessionReapIntervalMs: number;
  readonly maxTurnIterations: number;
  /** OpenAI-compatible model services ($BERTH_HOME/config.json and OPENAI_* env); the first is the default. */
  readonly modelServices: readonly ModelServiceSpec[];
  /** External ACP agents (issue 12): configured and installed ones, the default, start and memory bounds. */
  readonly agents: AgentSettings;
  /** Per local workspace (by root or id): what its commands get — env and network ($BERTH_HOME/config.json `workspaces`). */
  readonly workspaceSettings: Readonly<Record<string, WorkspaceSettings>>;
  /** MCP servers every local workspace's sessions may use ($BERTH_HOME/config.json `mcpServers`; src/config/mcp-servers.ts). */
  readonly mcpServers: readonly McpServerSpec[];

  readonly maxChannels: number;
  readonly maxChannelsPerToken: number;
  readonly maxInflightCallsPerWorkspace: number;
  readonly maxFrameBytes: number;
  readonly channelWaitMs: number;
  /** HTTP timeouts and connection caps; tests shorten them. */
  readonly httpLimits: HttpLimits;
}

/** `agentFlags` are `berth serve`'s agent options, resolved against the home file; `agents` replaces both. */
export type ConfigInput = { -readonly [K in keyof Config]?: Config[K] } & { agentFlags?: AgentFlags; /** `--store`, before BERTH_STORE_URL. */ storeUrl?: string;
  /** `--bus`, before BERTH_BUS_URL. */
  busUrl?: string;
  /** `--node-id` and `--lease-ms`, before BERTH_NODE_ID and BERTH_LEASE_MS. */
  nodeId?: string;
  leaseMs?: number;
};

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function defaultHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.BERTH_HOME && env.BERTH_HOME.trim() !== '' ? resolve(env.BERTH_HOME) : resolve(homedir(), '.berth');
}

export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

/** Applies defaults and checks every value; throws ConfigError with a sentence a person can act on. */
export function resolveConfig(input: ConfigInput, env: NodeJS.ProcessEnv = process.env): Config {
  const token = normalizeToken(input.token ?? env.BERTH_TOKEN ?? null);
  const hostname = input.hostname ?? '127.0.0.1';
  const home = input.home ? resolve(input.home) : defaultHome(env);
  const store = input.store ?? asConfigError(StoreConfigError, () => resolveStoreChoice(input.storeUrl, env));
  const cluster =
    input.cluster !== undefined
      ? input.cluster
      : asConfigError(ClusterConfigError, () => resolveClusterChoice({ nodeId: input.nodeId, leaseMs: input.leaseMs }, env, store.engine));
  const config: Config = {
    port: input.port ?? 4170,
    hostname,
    token,
    requireAuth: input.requireAuth ?? false,
    workspaces: (input.workspaces && input.workspaces.length > 0 ? input.workspaces : [process.cwd()]).map((w) =>
      resolve(w),
    ),
    remoteWorkspaces: input.remoteWorkspaces ?? [],
    remoteIntentions: input.remoteIntentions ?? {},
    allowWorkspaceRoots: (input.allowWorkspaceRoots ?? []).map((r) => resolve(r)),
    web: input.web ?? true,
    home,
    store,
    bus: input.bus !== undefined ? input.bus : resolveBusUrl(input.busUrl, env, store, cluster),
    cluster,
    allowOrigins: input.allowOrigins ?? [],
    logLevel: input.logLevel ?? env.BERTH_LOG_LEVEL ?? 'info',
    maxSessions: input.maxSessions ?? null,
    maxPendingPromptsPerSession: input.maxPendingPromptsPerSession ?? L.DEFAULT_MAX_PENDING_PROMPTS,
    rateLimits: input.rateLimits ?? [],
    promptDeadlineMs: input.promptDeadlineMs ?? null,
    eventRingSize: input.eventRingSize ?? L.DEFAULT_EVENT_RING_SIZE,
    permissionTimeoutMs: input.permissionTimeoutMs ?? null,
    permissionTimeoutOutcome: input.permissionTimeoutOutcome ?? 'reject',
    sessionIdleTimeoutMs: input.sessionIdleTimeoutMs ?? L.DEFAULT_SESSION_IDLE_TIMEOUT_MS,
    sessionReapIntervalMs: input.sessionReapIntervalMs ?? 60_000,
    maxTurnIterations: input.maxTurnIterations ?? L.DEFAULT_MAX_TURN_ITERATIONS,
    modelServices: resolveModelServices(input.modelServices, home, env),
    workspaceSettings: resolveWorkspaceSettings(input.workspaceSettings, home),
    mcpServers: resolveMcpServers(input.mcpServers, home),
    agents: resolveAgents(input, home, env),
    maxChannels: input.maxChannels ?? L.MAX_CHANNELS,
    maxChannelsPerToken: input.maxChannelsPerToken ?? L.MAX_CHANNELS_PER_TOKEN,
    maxInflightCallsPerWorkspace: input.maxInflightCallsPerWorkspace ?? L.MAX_INFLIGHT_CALLS_PER_WORKSPACE,
    maxFrameBytes: input.maxFrameBytes ?? DEFAULT_FRAME_BYTES,
    channelWaitMs: input.channelWaitMs ?? L.DEFAULT_CHANNEL_WAIT_MS,
    httpLimits: { ...DEFAULT_HTTP_LIMITS, ...input.httpLimits },
  };
  validate(config);
  return config;
}

/** Services given directly (tests, embedders) replace the home file and the env; both are checked the same way. */
function resolveModelServices(
  given: readonly ModelServiceSpec[] | undefined,
  home: string,
  env: NodeJS.ProcessEnv,
): readonly ModelServiceSpec[] {
  try {
    if (given === undefined) return loadModelServices(home, env);
    checkModelServices(given, 'modelServices option');
    return given;
  } catch (err) {
    if (err instanceof ModelConfigError) throw new ConfigError(err.message);
    throw err;
  }
}

/** Runs a resolver whose own error class `E` becomes a ConfigError with the same sentence. */
function asConfigError<T>(E: new (...args: never[]) => Error, resolve: () => T): T {
  try {
    return resolve();
  } catch (err) {
    throw err instanceof E ? new ConfigError(err.message) : err;
  }
}

function resolveAgents(input: ConfigInput, home: string, env: NodeJS.ProcessEnv): AgentSettings {
  return asConfigError(AgentConfigError, () =>
    input.agents === undefined ? loadAgentSettings(home, env, input.agentFlags) : checkAgentSettings(input.agents, 'agents option'),
  );
}

function resolveWorkspaceSettings(
  given: Readonly<Record<string, WorkspaceSettings>> | undefined,
  home: string,
): Readonly<Record<string, WorkspaceSettings>> {
  return asConfigError(WorkspaceSettingsError, () =>
    given === undefined ? loadWorkspaceSettings(home) : checkWorkspaceSettings(given, 'workspaceSettings option'),
  );
}

/** Servers given directly (tests, embedders, already checked) replace the home file's. */
function resolveMcpServers(given: readonly McpServerSpec[] | undefined, home: string): readonly McpServerSpec[] {
  try {
    return given ?? loadHomeMcpServers(home);
  } catch (err) {
    if (err instanceof McpConfigError) throw new ConfigError(err.message);
    throw err;
  }
}

function normalizeToken(raw: string | null): string | null {
  if (raw === null) return null;
  const t = raw.trim();
  return t === '' ? null : t;
}

function validate(c: Config): void {
  const int = (name: string, v: number, min: number, max = Number.MAX_SAFE_INTEGER) => {
    if (!Number.isInteger(v) || v < min || v > max) {
      throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got ${v}`);
    }
  };
  int('--port', c.port, 0, 65535);
  int('--max-pending-prompts-per-session', c.maxPendingPromptsPerSession, 1, 10_000);
  int('--event-ring-size', c.eventRingSize, 1, L.MAX_EVENT_RING_SIZE);
  int('--session-idle-timeout-ms', c.sessionIdleTimeoutMs, 0);
  int('--session-reap-interval-ms', c.sessionReapIntervalMs, 10, L.MAX_TIMER_MS);
  int('--max-turn-iterations', c.maxTurnIterations, 1, 10_000);
  int('--max-channels', c.maxChannels, 1, 10_000);
  int('--max-channels-per-token', c.maxChannelsPerToken, 1, 10_000);
  int('--max-inflight-calls', c.maxInflightCallsPerWorkspace, 1, 1024);
  int('--max-frame-bytes', c.maxFrameBytes, 1024, 64 * 1024 * 1024);
  int('--channel-wait-ms', c.channelWaitMs, 1, 24 * 3600 * 1000);
  try {
    checkHttpLimits(c.httpLimits);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  if (c.maxSessions !== null) int('--max-sessions', c.maxSessions, 1, 100_000);
  if (c.promptDeadlineMs !== null) int('--prompt-deadline-ms', c.promptDeadlineMs, 1, L.MAX_TIMER_MS);
  if (c.permissionTimeoutMs !== null) int('--permission-timeout-ms', c.permissionTimeoutMs, 1, L.MAX_TIMER_MS);
  if (!['reject', 'allow', 'cancel'].includes(c.permissionTimeoutOutcome)) {
    throw new ConfigError('--permission-timeout-outcome must be reject, allow or cancel');
  }
  for (const t of c.rateLimits) {
    int(`--rate-limit ${t.tier} max`, t.max, 1);
    int(`--rate-limit ${t.tier} window`, t.windowMs, 1);
    if (c.rateLimits.filter((o) => o.tier === t.tier).length > 1) {
      throw new ConfigError(`--rate-limit names the ${t.tier} tier more than once`);
    }
  }
  const taken = c.agents.agents.find((a) => c.modelServices.some((m) => m.id === a.id));
  if (taken) throw new ConfigError(`agent id "${taken.id}" is also a model service id; rename one of them`);
  if (c.requireAuth && c.token === null) {
    throw new ConfigError('--require-auth needs a token: pass --token-file or set BERTH_TOKEN');
  }
  if (!isLoopbackHost(c.hostname) && c.token === null) {
    throw new ConfigError(
      `binding to ${c.hostname} (not loopback) needs a token: pass --token-file or set BERTH_TOKEN`,
    );
  }
  // Any web page may call a daemon that allows every Origin; without a token that page drives it (issue 16).
  if (c.allowOrigins.includes('*') && c.token === null) {
    throw new ConfigError(
      '--allow-origin * lets any web page call the daemon; it needs a token: pass --token-file or set BERTH_TOKEN',
    );
  }
  for (const origin of c.allowOrigins) {
    if (origin !== '*' && !/^https?:\/\/[^/\s]+$/.test(origin)) {
      throw new ConfigError(`--allow-origin takes * or scheme://host[:port], got ${origin}`);
    }
  }
  for (const id of c.remoteWorkspaces) {
    if (!/^[A-Za-z0-9._-]{1,128}$/.test(id)) {
      throw new ConfigError(`--remote-workspace ids are 1-128 chars of [A-Za-z0-9._-], got ${id}`);
    }
  }
  for (const [id, intention] of Object.entries(c.remoteIntentions)) {
    if (!c.remoteWorkspaces.includes(id)) throw new ConfigError(`an intention is given for ${id}, which is not a --remote-workspace`);
    if (!isIntention(intention)) {
      throw new ConfigError(`the intention of ${id} must be 1-${MAX_INTENTION_CHARS} characters without control characters`);
    }
  }
}

/** A launch intention (docs/gateway.md): 1 to MAX_INTENTION_CHARS characters, none of them control characters. */
export function isIntention(text: string): boolean {
  return text.length > 0 && text.length <= MAX_INTENTION_CHARS && !/[\u0000-\u001f\u007f]/.test(text);
}
