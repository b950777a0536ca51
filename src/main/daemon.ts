import type { AddressInfo } from 'node:net';
import { createBuiltinDriver } from '../agents/builtin/index.js';
import { ModelServices } from '../agents/models/index.js';
import { systemClock, type Clock } from '../clock.js';
import type { Config } from '../config/config.js';
import type { Core } from '../core.js';
import { EventBus } from '../events/bus.js';
import { EventBusStats } from '../events/stats.js';
import { createGatewayHost } from '../gateway/host/index.js';
import { HealthRegistry } from '../health.js';
import { createHttpServer } from '../http/server.js';
import { dispatchUpgrade, type UpgradeRoute } from '../net/upgrade.js';
import { createLogger, type Logger } from '../log.js';
import { MessagingService, messagingTools } from '../messaging/index.js';
import { startModuleSockets } from '../modules/index.js';
import { sessionCounters } from '../sessions/counters.js';
import { SessionManager } from '../sessions/manager.js';
import { startIdleReaper } from '../sessions/reaper.js';
import { recoverInterrupted } from '../sessions/recovery.js';
import { SessionRestorer } from '../sessions/restore.js';
import { openStore } from '../store/db.js';
import { SqliteModuleInboxRepository } from '../store/repos/module-inbox.js';
import { SqliteModuleTabRepository } from '../store/repos/module-tabs.js';
import { SqlitePromptRepository } from '../store/repos/prompts.js';
import { SqliteSessionRepository } from '../store/repos/sessions.js';
import { SqliteTranscriptRepository } from '../store/repos/transcript.js';
import { TokenService } from '../tokens/tokens.js';
import { transcriptSecret } from '../transcript/secret.js';
import { TranscriptService } from '../transcript/service.js';
import { TranscriptTokens } from '../transcript/tokens.js';
import { bindLocalWorkspace } from '../toolproto/auth.js';
import { toolProtocolEndpoint } from '../toolproto/endpoint.js';
import { ToolProtocolHost } from '../toolproto/host.js';
import { CommandManager, localWorkspaceTools } from '../tools/builtin/index.js';
import { openReceiptJournal } from '../tools/receipt-journal.js';
import { ToolService } from '../tools/service.js';
import { WorkspaceRegistry } from '../workspace/registry.js';

export interface DaemonOptions {
  readonly config: Config;
  readonly log?: Logger;
  readonly clock?: Clock;
}

/** A running daemon: its core, its bound address, and one idempotent teardown. */
export interface Daemon {
  readonly core: Core;
  readonly port: number;
  readonly url: string;
  /** Closes sockets, sessions and the store; safe to call more than once. */
  close(): Promise<void>;
  /** Resolves once close() has finished. */
  readonly closed: Promise<void>;
}

/** The composition root: builds the core from the configuration, then starts every face on it. */
export async function startDaemon(options: DaemonOptions): Promise<Daemon> {
  const { config } = options;
  const log = options.log ?? createLogger(config.logLevel);
  const clock = options.clock ?? systemClock;
  const shutdownSteps: Array<() => Promise<void> | void> = [];

  const store = openStore(config.home);
  const workspaces = new WorkspaceRegistry(config.workspaces, config.remoteWorkspaces);
  const tokens = new TokenService(store.db, config.token);
  const health = new HealthRegistry();
  const models = new ModelServices(config.modelServices, {
    clock,
    home: config.home,
    // Discovery failure is not fatal (the service keeps its default model); say so once per attempt.
    onDiscoveryFailed: (modelServiceId, error) => log.warn({ modelServiceId, error }, 'model discovery failed'),
  });
  const tools = new ToolService({ journal: openReceiptJournal(store.db, clock.now()), clock });
  const commands = new CommandManager({ clock });
  const localTools = localWorkspaceTools({ commands });
  tools.setHostTools('local', () => localTools);
  const messaging = new MessagingService({
    clock,
    log,
    tabs: new SqliteModuleTabRepository(store.db),
    inbox: new SqliteModuleInboxRepository(store.db),
  });
  const moduleTools = messagingTools(messaging);
  tools.setSessionTools(() => moduleTools);
  const eventStats = new EventBusStats();
  const sessionStores = {
    sessions: new SqliteSessionRepository(store.db),
    transcript: new SqliteTranscriptRepository(store.db),
    prompts: new SqlitePromptRepository(store.db),
  };
  // Before anything can run: settle what a crashed (or stopped) predecessor left open (issue 4).
  const recovered = recoverInterrupted({ ...sessionStores, clock });
  if (recovered.interruptedTurns + recovered.unstartedPrompts + recovered.lostSessions > 0) {
    log.info(recovered, 'recovered sessions and prompts left by the previous run');
  }
  const sessions = new SessionManager({
    config,
    clock,
    log,
    workspaces,
    stores: sessionStores,
    factories: {
      createBus: (options) => new EventBus({ ringSize: config.eventRingSize, clock, stats: eventStats, ...options }),
      createDriver: async ({ modelServiceId, modelId }) => {
        const base = { services: models, maxTurnIterations: config.maxTurnIterations, clock };
        if (modelServiceId === undefined) {
          const driver = await createBuiltinDriver(base);
          // spec §5.7: a restored session gets its recorded model back, best effort (a model gone since keeps the default).
          if (modelId) await driver.setModel(modelId).catch((err: unknown) => log.warn({ err, modelId }, 'recorded model unavailable'));
          return { driver };
        }
        try {
          return { driver: await createBuiltinDriver({ ...base, modelServiceId }), modelApplied: true };
        } catch (err) {
          // spec §5.1: an unusable modelServiceId fails softly; the session starts on the default service.
          const modelError = err instanceof Error ? err.message : String(err);
          return { driver: await createBuiltinDriver(base), modelApplied: false, modelError };
        }
      },
      toolsFor: (workspace, sessionId) => tools.forSession(workspace, sessionId),
      sessionClosed: (sessionId) => {
        messaging.closed(sessionId);
        void commands.releaseSession(sessionId);
      },
      sessionOpened: (session) => messaging.opened(session),
      sessionIdle: (session) => messaging.idle(session),
    },
  });
  health.contribute(() => sessionCounters(sessions.list(), clock.now()));
  const restorer = new SessionRestorer({ manager: sessions, stores: sessionStores, workspaces, clock, log });
  const transcripts = new TranscriptService({
    stores: sessionStores,
    tokens: new TranscriptTokens(transcriptSecret(store.db)),
    clock,
    workspaces,
  });

  const core: Core = {
    config,
    log,
    clock,
    store,
    tokens,
    workspaces,
    health,
    models,
    tools,
    sessions,
    restorer,
    transcripts,
    messaging,
    eventStats,
    startedAt: clock.now(),
    onShutdown: (fn) => shutdownSteps.push(fn),
  };
  // Steps run in reverse: the model connections close after the sessions that stream on them.
  core.onShutdown(() => models.close());
  core.onShutdown(() => commands.dispose());
  core.onShutdown(() => sessions.shutdown());
  const reaper = startIdleReaper(() => sessions.list(), config, clock);
  core.onShutdown(() => reaper.stop());

  // ── services of later concepts are built here, each registering its own shutdown ──

  // Seed 004: one Unix socket per local workspace; shutdown runs in reverse, so it stops taking questions before sessions close.
  const moduleSockets = await startModuleSockets(core);
  core.onShutdown(() => moduleSockets.close());

  let boundPort = config.port;
  const app = createHttpServer(core, () => boundPort);
  const upgradeRoutes: UpgradeRoute[] = [];
  // Seed 000: remote workspaces run their tools through the gateway channels their owners dial in.
  const gateway = createGatewayHost(core, localTools, () => boundPort);
  upgradeRoutes.push(gateway.route);
  core.onShutdown(() => gateway.shutdown());
  // Seed 003: applications connect with an app token and publish their tools into the workspace they bind to.
  const applications = new ToolProtocolHost({ registry: tools.applications, clock, log });
  const toolEndpoint = toolProtocolEndpoint({
    security: { config, tokens, port: () => boundPort },
    host: applications,
    bindWorkspace: bindLocalWorkspace(workspaces),
    log,
  });
  upgradeRoutes.push(toolEndpoint);
  core.onShutdown(() => {
    toolEndpoint.close();
    applications.shutdown();
  });
  app.server.on('upgrade', dispatchUpgrade(upgradeRoutes));

  await app.listen({ port: config.port, host: config.hostname });
  boundPort = (app.server.address() as AddressInfo).port;
  const host = config.hostname.includes(':') ? `[${config.hostname}]` : config.hostname;
  const url = `http://${host}:${boundPort}`;
  log.info({ url, workspaces: workspaces.list().map((w) => w.id), home: config.home }, 'berth listening');

  let closing: Promise<void> | undefined;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));
  const close = () => {
    // Services first (they flush terminal events to open streams), then the listener, then the store.
    closing ??= (async () => {
      for (const step of shutdownSteps.reverse()) {
        try {
          await step();
        } catch (err) {
          log.warn({ err }, 'shutdown step failed');
        }
      }
      await app.close().catch((err: unknown) => log.warn({ err }, 'http close failed'));
      store.close();
      log.info('berth stopped');
      log.flush?.();
      resolveClosed();
    })();
    return closing;
  };

  return { core, port: boundPort, url, close, closed };
}
