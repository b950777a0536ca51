import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../clock.js';
import { isLoopbackHost } from '../config/config.js';
import { BerthError } from '../protocol/errors/index.js';
import { errorBody } from '../net/errors.js';
import { dispatchUpgrade } from '../net/upgrade.js';
import type { Logger } from '../log.js';
import type { TokenService } from '../tokens/tokens.js';
import type { ApplicationToolRegistry } from '../tools/application-registry.js';
import { toolProtocolEndpoint } from './endpoint.js';
import { ToolProtocolHost } from './host.js';
import { TOOL_PROTOCOL_PATH } from '../protocol/toolproto/subprotocol.js';

export interface ApplicationListenerOptions {
  /** A loopback address: the applications run on this machine. */
  readonly hostname: string;
  /** 0 picks a free port. */
  readonly port: number;
  readonly registry: ApplicationToolRegistry;
  /** The one workspace these applications bind to (a `?workspace=` naming another is refused). */
  readonly workspaceId: string;
  /** Where application tokens are recognised (the owner's own home). */
  readonly tokens: TokenService;
  readonly clock: Clock;
  readonly log: Logger;
  /** The largest frame an application may send. */
  readonly maxFrameBytes: number;
}

export interface ApplicationListener {
  /** `ws://host:port/api/tools/v1/connect`. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * The tool protocol on a listener of its own, for processes that are not a
 * daemon: `berth connect --tools-listen` mounts it so applications on the
 * owner's machine publish into the owner's workspace, and a remote agent
 * host reaches them through the gateway channel (`workspace_tools` /
 * `workspace_tool` run on the owner). Same admission, same frames; the only
 * route is the upgrade, everything else is 404.
 */
export async function startApplicationListener(options: ApplicationListenerOptions): Promise<ApplicationListener> {
  if (!isLoopbackHost(options.hostname)) {
    throw new BerthError('invalid_request', `Applications connect on a loopback address; ${options.hostname} is not one`);
  }
  let port = options.port;
  const host = new ToolProtocolHost({ registry: options.registry, clock: options.clock, log: options.log });
  const endpoint = toolProtocolEndpoint({
    security: { config: { hostname: options.hostname, allowOrigins: [], requireAuth: true }, tokens: options.tokens, port: () => port },
    host,
    bindWorkspace: (named) => {
      if (named === null || named === '' || named === options.workspaceId) return options.workspaceId;
      throw new BerthError('workspace_mismatch', `This listener serves workspace ${options.workspaceId} only`, { requestedWorkspace: named });
    },
    log: options.log,
    maxFrameBytes: options.maxFrameBytes,
  });
  const server = createServer((_request, response) => {
    const body = JSON.stringify(errorBody(new BerthError('route_not_found', `Only ${TOOL_PROTOCOL_PATH} is served here`)));
    response.writeHead(404, { 'content-type': 'application/json; charset=utf-8' }).end(body);
  });
  server.on('upgrade', dispatchUpgrade([endpoint]));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.hostname, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  const shown = options.hostname.includes(':') ? `[${options.hostname}]` : options.hostname;
  let closing: Promise<void> | undefined;
  return {
    url: `ws://${shown}:${port}${TOOL_PROTOCOL_PATH}`,
    close: () =>
      (closing ??= (async () => {
        endpoint.close();
        host.shutdown();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      })()),
  };
}
