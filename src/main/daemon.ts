import type { AddressInfo } from 'node:net';
import { systemClock, type Clock } from '../clock.js';
import type { Config } from '../config/config.js';
import type { Core } from '../core.js';
import { createGatewayHost } from '../gateway/host/index.js';
import { createHttpServer } from '../http/server.js';
import { createLogger, type Logger } from '../log.js';
import { startModuleSockets } from '../modules/index.js';
import { dispatchUpgrade, type UpgradeRoute } from '../net/upgrade.js';
import type { Store } from '../store/db.js';
import { SqliteGatewayCallRepository } from '../store/repos/gateway-calls.js';
import { bindLocalWorkspace } from '../toolproto/auth.js';
import { toolProtocolEndpoint } from '../toolproto/endpoint.js';
import { ToolProtocolHost } from '../toolproto/host.js';
import { buildCore } from './core.js';

export interface DaemonOptions {
  readonly config: Config;
  readonly log?: Logger;
  readonly clock?: Clock;
}

/** A running daemon: its core, its bound address, and one idempotent teardown. */
export interface Daemon {
  readonly core: Core;
  /** The store under the core, for the process that owns it (tests inspect it); no face receives it. */
  readonly store: Store;
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
  const { core, store, localTools, shutdown } = buildCore(config, log, clock);

  // The module protocol: one Unix socket per local workspace; shutdown runs in reverse, so it stops taking questions before sessions close.
  const moduleSockets = await startModuleSockets(core);
  core.onShutdown(() => moduleSockets.close());

  let boundPort = config.port;
  const app = createHttpServer(core, () => boundPort);
  const upgradeRoutes: UpgradeRoute[] = [];
  // The gateway channel: remote workspaces run their tools through the channels their owners dial in.
  const gateway = createGatewayHost(core, {
    workspaceTools: localTools,
    journal: new SqliteGatewayCallRepository(store.db),
    boundPort: () => boundPort,
  });
  upgradeRoutes.push(gateway.route);
  core.onShutdown(() => gateway.shutdown());
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
  log.info({ url, workspaces: core.workspaces.list().map((w) => w.id), home: config.home }, 'berth listening');

  let closing: Promise<void> | undefined;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));
  const close = () => {
    // Services first (they flush terminal events to open streams), then the listener, then the store.
    closing ??= (async () => {
      await shutdown();
      await app.close().catch((err: unknown) => log.warn({ err }, 'http close failed'));
      store.close();
      log.info('berth stopped');
      log.flush?.();
      resolveClosed();
    })();
    return closing;
  };

  return { core, store, port: boundPort, url, close, closed };
}
