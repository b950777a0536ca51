import { AgentCatalog } from '../agents/acp/catalog.js';
import { builtinDriverFactory, driverFactory } from '../agents/driver-factory.js';
import { ModelServices } from '../agents/models/index.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config/config.js';
import type { Core } from '../core.js';
import { EventBus } from '../events/bus.js';
import { EventBusStats } from '../events/stats.js';
import { HealthRegistry } from '../health.js';
import { ChannelStates } from '../workspace/channel-states.js';
import type { Logger } from '../log.js';
import { MessagingService, messagingTools } from '../messaging/index.js';
import { McpHub } from '../mcp/hub.js';
import { sessionCounters } from '../sessions/counters.js';
import { SessionManager } from '../sessions/manager.js';
import { startIdleReaper } from '../sessions/reaper.js';
import { recoverInterrupted, recoverSession } from '../sessions/recovery.js';
import { TokenService } from '../tokens/tokens.js';
import { CommandManager, localWorkspaceTools } from '../tools/builtin/index.js';
import { openReceiptJournal } from '../tools/receipt-journal.js';
import { ToolService } from '../tools/service.js';
import { DEFAULT_EXEC_WAIT_MS } from '../tools/limits.js';
import type { Tool } from '../tools/types.js';
import { transcriptSecret } from '../transcript/secret.js';
import { TranscriptService } from '../transcript/service.js';
import { TranscriptTokens } from '../transcript/tokens.js';
import { WorkspaceRegistry } from '../workspace/registry.js';
import type { SandboxProbe } from '../tools/builtin/commands/sandbox.js';
import { advertisedLimits } from './advertised-limits.js';
import { mcpLaunch } from './mcp-launch.js';
import { agentModules } from './agent-modules.js';
import { confineCommands } from './command-confinement.js';
import type { CommandConfinement } from '../tools/builtin/commands/confinement.js';
import type { Repositories } from './repositories.js';
import { openDaemonStore, type DaemonStore } from './store.js';
import { joinCluster } from './cluster-bus.js';
import type { BusNode } from '../cluster/bus-node.js';
import type { ChannelPresence } from '../cluster/channel-presence.js';
import type { SessionPlacement } from '../cluster/placement.js';

/** The core and what only the wiring holds: the store itself and the local tools the gateway offers remote workspaces. */
export interface BuiltCore {
  readonly core: Core;
  readonly store: DaemonStore;
  /** The repositories on that store, typed by the interfaces their users declare. */
  readonly repos: Repositories;
  readonly localTools: readonly Tool[];
  /** How commands run; its machine probe is what the daemon reports once listening. */
  readonly confinement: CommandConfinement;
  /** This node on the cluster bus, when `--bus` names one; the daemon makes it answer the other nodes. */
  readonly bus: BusNode | undefined;
  /** This node's gateway channels counted with the other nodes' (cluster mode only). */
  readonly channelPresence: ChannelPresence | undefined;
  /** Runs every registered shutdown step, newest first; a failing step is logged and the rest still run. */
  shutdown(): Promise<void>;
}

/** Opens the store and builds the core services on it; no face is started here. */
export async function buildCore(config: Config, log: Logger, clock: Clock, sandbox?: SandboxProbe, placement?: SessionPlacement): Promise<BuiltCore> {
  const shutdownSteps: Array<() => Promise<void> | void> = [];
  const { store, repos } = await openDaemonStore(config.store, config.home, config.cluster?.nodeId ?? null, log);
  const workspaces = new WorkspaceRegistry(config.workspaces, config.remoteWorkspaces, config.allowWorkspaceRoots);
  const health = new HealthRegistry();
  const models = new ModelServices(config.modelServices, {
    clock,
    home: config.home,
    // Discovery failure is not fatal (the service keeps its default model); say so once per attempt.
    onDiscoveryFailed: (modelServiceId, error) => log.warn({ modelServiceId, error }, 'model discovery failed'),
  });
  const tools = new ToolService({ journal: await openReceiptJournal(repos.receipts, clock.now()), clock });
  const confinement = confineCommands(config, workspaces, sandbox);
  const commands = new CommandManager({ clock, confinement });
  const localTools = localWorkspaceTools({ commands, execWaitMs: DEFAULT_EXEC_WAIT_MS });
  tools.setHostTools('local', () => localTools);
  const messaging = new MessagingService({
    clock,
    log,
    tabs: repos.moduleTabs,
    inbox: repos.moduleInbox,
  });
  const moduleTools = messagingTools(messaging);
  tools.setSessionTools(() => moduleTools);
  const mcp = new McpHub({ registry: tools.applications, homeServers: config.mcpServers, log, launchFor: mcpLaunch(confinement) });
  const agents = new AgentCatalog(config.agents, {
    berthHome: config.home,
    confinement,
    path: process.env.PATH,
    modules: agentModules(messaging),
    mcpServers: (workspace) => mcp.specs(workspace),
    log,
  });
  const builtinDriver = builtinDriverFactory({ services: models, maxTurnIterations: config.maxTurnIterations, clock, log });
  const agentOrBuiltin = driverFactory(builtinDriver, agents, log);
  const eventStats = new EventBusStats();
  const sessionStores = {
    sessions: repos.sessions,
    transcript: repos.transcript,
    prompts: repos.prompts,
    grants: repos.grants,
    checkpoints: repos.checkpoints,
  };
  const recoveryStores = { ...sessionStores, clock, receipts: repos.receipts };
  // Cluster mode: other nodes' sessions are live; each session is recovered by the node that takes its lease.
  const leases =
    config.cluster && store.engine === 'postgres' && config.store.engine === 'postgres'
      ? await (await import('./cluster-leases.js')).startCluster(config.cluster, config.store.url, store.db, {
          // Recovery writes as the session it settles, fenced by the lease just taken.
          recover: (id) => recoverSession({ ...recoveryStores, ...repos.ofSession?.(id) }, id),
          log,
          health,
          channelLimits: config,
        })
      : undefined;
  // A single daemon on PostgreSQL reports its store as a node does: /health says degraded while the database is away.
  if (!leases && store.engine === 'postgres') {
    const { probeStore } = await import('../cluster/readiness.js');
    health.probe(() => probeStore(store.db));
  }
  const bus = await joinCluster(config, leases?.node ?? placement, clock, log, eventStats, leases?.holds);
  // Registered first, so it runs last: the sessions' final events still reach the other nodes.
  if (bus) shutdownSteps.push(() => bus.close());
  if (bus && leases) {
    messaging.joinPeers(bus.shareTabs(messaging.here, (workspaceId) => leases.nodesWithTabs(workspaceId)));
    const { watchOwners } = await import('../cluster/owner-watch.js');
    const stopWatching = watchOwners({
      followed: () => bus.followed(),
      holders: (ids) => leases.node.holders(ids),
      ownerGone: (sessionId, nodeId) => bus.ownerGone(sessionId, nodeId),
      intervalMs: config.cluster!.leaseMs / 3,
      log,
    });
    shutdownSteps.push(stopWatching);
  }
  // Before anything can run: settle what a crashed (or stopped) predecessor left open.
  const recovered = leases ? null : await recoverInterrupted(recoveryStores);
  if (recovered && recovered.interruptedTurns + recovered.unstartedPrompts + recovered.lostSessions > 0) {
    log.info(recovered, 'recovered sessions and prompts left by the previous run');
  }
  const sessions = new SessionManager({
    config,
    clock,
    log,
    workspaces,
    stores: sessionStores,
    // A node's sessions write through their own repositories, so that each write names its session.
    ...(leases ? { ownership: leases.node, ...(repos.ofSession ? { storesOf: repos.ofSession } : {}) } : {}),
    factories: {
      createBus: ({ sessionId, ...options }) => {
        const tap = bus?.tapFor(sessionId);
        return new EventBus({ ringSize: config.eventRingSize, clock, stats: eventStats, ...options, ...(tap && { tap }) });
      },
      // A workspace's MCP servers start with its first session, whose driver waits (bounded) for their tools.
      createDriver: async (request) => {
        await mcp.ready(request.workspace);
        return agentOrBuiltin(request);
      },
      toolsFor: (workspace, sessionId) => tools.forSession(workspace, sessionId),
      sessionClosed: (sessionId) => {
        messaging.closed(sessionId);
        void commands.releaseSession(sessionId);
      },
      sessionOpened: async (session, fresh) => {
        await messaging.opened(session, fresh);
        // Seed 004's network rule: a tab reaches the network only if its commands' sandbox does.
        messaging.declare(session.id, { network: confinement.networkOf(session.workspace.id) });
      },
      sessionIdle: (session) => messaging.idle(session),
    },
  });
  leases?.onLost((id) => sessions.handOver(id));
  health.contribute(() => sessionCounters(sessions.list(), clock.now()));
  if (bus) health.contribute(() => ({ busReachable: bus.reachable() }));
  const transcripts = new TranscriptService({
    stores: sessionStores,
    tokens: new TranscriptTokens(await transcriptSecret(repos.meta)),
    clock,
    workspaces,
    // A live session's reads wait for what it has submitted (the store is asynchronous).
    written: (sessionId) => sessions.written(sessionId),
  });

  const core: Core = {
    config,
    log,
    clock,
    tokens: new TokenService(repos.tokens, config.token),
    workspaces,
    channels: new ChannelStates(),
    health,
    limits: advertisedLimits(config),
    models,
    agents,
    tools,
    sessions,
    transcripts,
    messaging,
    eventStats,
    // A getter: the machine's sandbox probe runs after the port opens, and this reads it then.
    get confinement() {
      return confinement.report();
    },
    ...(bus && { cluster: bus }),
    startedAt: clock.now(),
    onShutdown: (fn) => shutdownSteps.push(fn),
  };
  // Steps run in reverse: the model connections close after the sessions that stream on them.
  core.onShutdown(() => models.close());
  core.onShutdown(() => commands.dispose());
  core.onShutdown(() => mcp.shutdown());
  // After the sessions closed (and disposed their drivers): whatever agent process is left goes, group and all.
  core.onShutdown(() => agents.shutdown());
  // Cluster mode: leases go back after the sessions have handed over and stored their last writes.
  if (leases) core.onShutdown(() => leases.stop());
  core.onShutdown(() => sessions.shutdown());
  if (leases) core.onShutdown(() => leases.node.beginDrain());
  const reaper = startIdleReaper(() => sessions.list(), config, clock);
  core.onShutdown(() => reaper.stop());

  const shutdown = async () => {
    for (const step of shutdownSteps.splice(0).reverse()) {
      try {
        await step();
      } catch (err) {
        log.warn({ err }, 'shutdown step failed');
      }
    }
  };
  return { core, store, repos, localTools, confinement, bus, channelPresence: leases?.channels, shutdown };
}
