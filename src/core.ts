import type { AgentCatalog } from './agents/acp/catalog.js';
import type { ModelServices } from './agents/models/index.js';
import type { Clock } from './clock.js';
import type { SessionPlacement } from './cluster/placement.js';
import type { Config } from './config/config.js';
import type { EventBusStats } from './events/stats.js';
import type { HealthRegistry } from './health.js';
import type { Logger } from './log.js';
import type { MessagingService } from './messaging/service.js';
import type { SessionManager } from './sessions/manager.js';
import type { TokenService } from './tokens/tokens.js';
import type { TranscriptService } from './transcript/service.js';
import type { ConfinementReport } from './tools/builtin/commands/confinement.js';
import type { ToolService } from './tools/service.js';
import type { ChannelStates } from './workspace/channel-states.js';
import type { WorkspaceRegistry } from './workspace/registry.js';

/**
 * The daemon's core services, built once in `daemon.ts` and handed to every
 * face. The core knows nothing of HTTP, WebSocket or sockets (docs/architecture.md,
 * Layers); faces translate wire ⇄ these calls and keep no state of their own.
 */
export interface Core {
  readonly config: Config;
  readonly log: Logger;
  readonly clock: Clock;
  readonly tokens: TokenService;
  readonly workspaces: WorkspaceRegistry;
  /** Each remote workspace's gateway channel state, as the gateway face reports it. */
  readonly channels: ChannelStates;
  readonly health: HealthRegistry;
  /** Every bound in force, as `/capabilities` advertises it: the configured ones and each module's fixed ones. */
  readonly limits: Readonly<Record<string, unknown>>;
  /** OpenAI-compatible model services for the built-in agent (Config.modelServices), default first. */
  readonly models: ModelServices;
  /** External ACP agents (issue 12): the offered ones, their reported models, their processes. */
  readonly agents: AgentCatalog;
  /** The tool layer: tool sets per workspace and caller, the application tool registry. */
  readonly tools: ToolService;
  /** Every session: create, open (reopening one a stopped daemon lost), load and resume, close (docs/client-api.md §5-§9). */
  readonly sessions: SessionManager;
  /** Cluster mode (docs/cluster-leases.md): where each session runs; absent on a single daemon, where every session is local. */
  readonly placement?: SessionPlacement;
  /** Persisted history: the session list, transcript pages, the turn index and exports (docs/client-api.md §10). */
  readonly transcripts: TranscriptService;
  /** The module protocol (docs/modules.md): sessions as tabs, their tokens, messages, inboxes and delivery. */
  readonly messaging: MessagingService;
  /** Counters of every session's event bus and open SSE streams. */
  readonly eventStats: EventBusStats;
  /** How `workspace_exec` commands are confined: the sandbox in use (or why none), the workspaces without network. */
  readonly confinement: ConfinementReport;
  /** Milliseconds since epoch when this process started serving. */
  readonly startedAt: number;
  /** Registers work to run once on shutdown, in reverse order of registration. */
  onShutdown(fn: () => Promise<void> | void): void;
}
