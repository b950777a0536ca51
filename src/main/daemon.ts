import type { AddressInfo } from 'node:net';
import { systemClock, type Clock } from '../clock.js';
import type { Config } from '../config/config.js';
import type { Core } from '../core.js';
import { createGatewayHost, remoteWorkspaceTools } from '../gateway/host/index.js';
import { createHttpServer } from '../http/server.js';
import { directForwardedAnswers } from '../http/forwarded-answers.js';
import { httpRateLimiter } from '../http/rate-limit.js';
import { createLogger, type Logger } from '../log.js';
import { mcpEndpoint } from '../mcpserve/endpoint.js';
import { startModuleSockets } from '../modules/index.js';
import { dispatchUpgrade, type UpgradeRoute } from '../net/upgrade.js';
import type { DaemonStore } from './store.js';
import { bindLocalWorkspace } from '../toolproto/auth.js';
import { toolProtocolEndpoint } from '../toolproto/endpoint.js';
import { ToolProtocolHost } from '../toolproto/host.js';
import type { SandboxProbe } from '../tools/builtin/commands/sandbox.js';
import { sweepTempFiles } from '../workspace/temp-sweep.js';
import { newSessionId } from '../sessions/ids.js';
import { buildCore } from './core.js';
import { clusterServices } from './cluster-bus.js';
import type { SessionPlacement } from '../cluster/placement.js';
import { reportCommandSandbox } from './command-confinement.js';
import { lockHome, type HomeLock } from './home-lock.js';
import { collectStartupGarbage } from './startup-gc.js';
import { ownAddress, warmRequestPath, warmsUp } from './request-warm-up.js';

export interface DaemonOptions {
  readonly config: Config;
  readonly log?: Logger;
  readonly clock?: Clock;
  /** Whether commands can be sandboxed (default: bubblewrap probed on this machine); tests pass one to see both cases. */
  readonly sandbox?: SandboxProbe;
  /** Where sessions run when `config.bus` joins other nodes (cluster/placement.ts); every session is this node's by default. */
  readonly placement?: SessionPlacement;
}

/** A running daemon: its core, its bound address, and one idempotent teardown. */
export interface Daemon {
  readonly core: Core;
  /** The store under the core, for the process that owns it (tests inspect it); no face receives it. */
  readonly store: DaemonStore;
  readonly port: number;
  readonly url: string;
  /** Closes sockets, sessions and the store; safe to call more than once. */
  close(): Promise<void>;
  /** Resolves once close() has finished. */
  readonly closed: Promise<void>;
  /** Resolves with how many temp files a killed earlier run left behind were removed at start-up. */
  readonly swept: Promise<number>;
}

/**
 * How long after the port opens the model client, the sandbox probe and an
 * agent's SDK start loading (about 60 ms of CPU together). A client that
 * started the daemon asks /health and creates its first session within a few
 * milliseconds of the listening line; neither needs these, and a prompt that
 * comes sooner loads what it needs itself.
 */
const HEAVY_WARM_UP_DELAY_MS = 200;
/** Rounds of the daemon's own requests after the heavy loading (request-warm-up.ts). */
const WARM_UP_ROUNDS = 30;

/**
 * The composition root: builds the core from the configuration, then starts every face on it.
 * Takes the home first (issue 11): a second daemon on a held home is refused before it touches anything.
 */
export async function startDaemon(options: DaemonOptions): Promise<Daemon> {
  const lock = lockHome(options.config.home);
  try {
    return await startOnLockedHome(options, lock);
  } catch (err) {
    lock.release();
    throw err;
  }
}

async function startOnLockedHome(options: DaemonOptions, lock: HomeLock): Promise<Daemon> {
  const { config } = options;
  const log = options.log ?? createLogger(config.logLevel);
  const clock = options.clock ?? systemClock;
  const { core, store, repos, localTools, confinement, bus, channelPresence, shutdown } = await buildCore(config, log, clock, options.sandbox, options.placement);

  // The module protocol: one Unix socket per local workspace; shutdown runs in reverse, so it stops taking questions before sessions close.
  const moduleSockets = await startModuleSockets(core);
  core.onShutdown(() => moduleSockets.close());

  let boundPort = config.port;
  // Berth as an MCP server (docs/mcp-server.md): a tab token of a session reaches its tools over streamable HTTP.
  const mcp = mcpEndpoint({ messaging: core.messaging, applications: core.tools.applications, sessions: core.sessions, log });
  // One limiter: forwarded requests the owner answers without fastify count in the windows its hook keeps.
  const limiter = httpRateLimiter(core);
  const app = createHttpServer(core, () => boundPort, [mcp], limiter);
  const upgradeRoutes: UpgradeRoute[] = [];
  // The gateway channel: remote workspaces run their tools through the channels their owners dial in.
  const gateway = createGatewayHost(core, {
    workspaceTools: localTools,
    journal: repos.gatewayCalls,
    boundPort: () => boundPort,
    clustered: bus !== undefined,
  });
  upgradeRoutes.push(gateway.route);
  core.onShutdown(() => gateway.shutdown());
  // In a cluster, a remote workspace's calls go to whichever node holds its channel, and applications are seen from every node (docs/cluster-bus.md).
  if (bus) {
    core.tools.setHostTools('remote', remoteWorkspaceTools(localTools, bus.gateway(gateway.hub, config.channelWaitMs)));
    bus.applications(core.tools.applications, (id) => core.workspaces.find(id));
  }
  // And the channel limits count every node's channels.
  if (channelPresence) gateway.hub.countAcrossNodes(channelPresence);
  // The tool protocol: applications connect with an app token and publish their tools into the workspace they bind to.
  const applications = new ToolProtocolHost({ registry: core.tools.applications, clock, log });
  const toolEndpoint = toolProtocolEndpoint({
    security: { config, tokens: core.tokens, port: () => boundPort },
    host: applications,
    bindWorkspace: bindLocalWorkspace(core.workspaces),
    log,
    maxFrameBytes: config.maxFrameBytes,
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
  // Only once the port is known: a forwarded request runs with the Host this node answers to.
  bus?.serve(clusterServices(bus, app, core.sessions, clock, () => `${host}:${boundPort}`, directForwardedAnswers(core, () => boundPort, limiter)));
  lock.announce(url);
  log.info({ url, workspaces: core.workspaces.list().map((w) => w.id), home: config.home }, 'berth listening');
  const swept = sweepWorkspaceTemps(core, clock, log);
  // What start-up left for later (issue 17), loaded while the daemon already answers. First what the first session waits
  // for and costs little: the model list (a plain GET). The heavy loading waits a moment, so it does not sit in front
  // of the requests a client sends as soon as it sees the port open (its /health, its first session).
  setImmediate(() => {
    // Node sets up randomUUID()'s batch of random bytes on its first call (~0.2-0.3 ms of CPU, measured),
    // and nothing before the port opens draws one: the first session's id would. A discarded id moves that here.
    newSessionId();
    void core.models.warmUp().catch((err: unknown) => log.warn({ err }, 'model list warm-up failed'));
  });
  let stopping = false;
  const heavy = setTimeout(() => {
    const loads = [
      core.models.loadClients().catch((err: unknown) => log.warn({ err }, 'model client warm-up failed')),
      reportCommandSandbox(confinement, log, options.sandbox).catch((err: unknown) => log.warn({ err }, 'sandbox probe failed')),
      core.agents.warmUp().catch((err: unknown) => log.warn({ err }, 'agent driver warm-up failed')),
    ];
    // Then the request path, run warm by requests of the daemon's own (request-warm-up.ts), and the garbage all of it
    // left, in one collection now rather than in the first turns (startup-gc.ts).
    const warmUp = warmsUp(config, limiter !== undefined);
    const target = { host: ownAddress(app.server.address() as AddressInfo), port: boundPort, token: config.token };
    void Promise.all(loads)
      .then(() => (warmUp && !stopping ? warmRequestPath(target, WARM_UP_ROUNDS, () => stopping) : null))
      .then((report) => {
        if (report) log.debug(report, 'request path warmed');
        setImmediate(() => {
          if (!stopping) log.debug({ ms: collectStartupGarbage() }, 'start-up garbage collected');
        });
      });
  }, HEAVY_WARM_UP_DELAY_MS);
  core.onShutdown(() => {
    stopping = true;
    clearTimeout(heavy);
  });

  let closing: Promise<void> | undefined;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));
  const close = () => {
    // Services first (they flush terminal events to open streams), then the listener, then the store.
    closing ??= (async () => {
      await swept;
      await shutdown();
      await app.close().catch((err: unknown) => log.warn({ err }, 'http close failed'));
      await store.close();
      lock.release();
      log.info('berth stopped');
      log.flush?.();
      resolveClosed();
    })();
    return closing;
  };

  return { core, store, port: boundPort, url, close, closed, swept };
}

/** Removes the temp files a killed run left in the local workspaces, in the background (workspace/temp-sweep.ts). */
async function sweepWorkspaceTemps(core: Core, clock: Clock, log: Logger): Promise<number> {
  let removed = 0;
  for (const ws of core.workspaces.list()) {
    if (ws.kind !== 'local') continue;
    const result = await sweepTempFiles(ws.root, clock.now()).catch((err: unknown) => {
      log.warn({ err, workspace: ws.id }, 'temp file sweep failed');
      return null;
    });
    if (!result) continue;
    removed += result.removed;
    if (result.removed > 0 || result.truncated) log.info({ workspace: ws.id, ...result }, 'temp files left by an earlier run removed');
  }
  return removed;
}
