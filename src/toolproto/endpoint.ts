import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { APP_PING_INTERVAL_MS } from './limits.js';
import { asBerthError } from '../protocol/errors/index.js';
import type { SecurityContext } from '../net/security.js';
import { rejectUpgradeWithError, type UpgradeRoute } from '../net/upgrade.js';
import type { Logger } from '../log.js';
import { admitApplication, type WorkspaceBinder } from './auth.js';
import type { ToolProtocolHost } from './host.js';
import { TOOL_PROTOCOL_PATH, TOOL_SUBPROTOCOL } from '../protocol/toolproto/subprotocol.js';

export interface ToolEndpointDeps {
  readonly security: SecurityContext;
  readonly host: ToolProtocolHost;
  readonly bindWorkspace: WorkspaceBinder;
  readonly log: Logger;
  /** The largest frame an application may send (`Config.maxFrameBytes`, advertised as `limits.frameBytes`). */
  readonly maxFrameBytes: number;
}

export interface ToolEndpoint extends UpgradeRoute {
  /** Stops the heartbeat; the host closes the sockets. */
  close(): void;
}

/**
 * The WebSocket face of the tool protocol: admits an application (token,
 * Origin, Host, workspace) before the upgrade — refusals are plain HTTP
 * errors with the client API's error body — then hands every text frame to
 * its session. Frames above `maxFrameBytes` close that socket with 1009
 * (the `ws` limit); nothing one application sends touches another's socket.
 */
export function toolProtocolEndpoint(deps: ToolEndpointDeps): ToolEndpoint {
  const wss = new WebSocketServer({
    noServer: true,
    clientTracking: false,
    maxPayload: deps.maxFrameBytes,
    perMessageDeflate: false,
    // Only ever select our own subprotocol; a `berth.bearer.*` entry is a credential and is never echoed.
    handleProtocols: (offered) => (offered.has(TOOL_SUBPROTOCOL) ? TOOL_SUBPROTOCOL : false),
  });
  const alive = new Map<WebSocket, boolean>();
  const heartbeat = setInterval(() => {
    for (const [ws, answered] of alive) {
      if (!answered) ws.terminate();
      else {
        alive.set(ws, false);
        ws.ping();
      }
    }
  }, APP_PING_INTERVAL_MS);
  heartbeat.unref();

  const handle = async (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    let admission;
    try {
      deps.host.assertRoom();
      admission = await admitApplication(request, deps.security, deps.bindWorkspace);
      deps.host.assertRoom(); // again: another application may have taken the last place meanwhile
    } catch (err) {
      rejectUpgradeWithError(socket, asBerthError(err));
      return;
    }
    const { identity, workspaceId } = admission;
    wss.handleUpgrade(request, socket, head, (ws) => {
      const session = deps.host.attach(
        { send: (text) => ws.send(text), close: (code, reason) => ws.close(code, reason) },
        identity,
        workspaceId,
      );
      alive.set(ws, true);
      ws.on('pong', () => alive.set(ws, true));
      ws.on('message', (data: RawData, isBinary: boolean) => session.receive(isBinary ? '' : rawText(data), isBinary));
      ws.on('error', (err) => deps.log.debug({ application: identity.appName, err: err.message }, 'application socket error'));
      ws.on('close', (code) => {
        alive.delete(ws);
        deps.host.detach(session, code);
      });
    });
  };

  return {
    name: 'tool-protocol',
    matches: (pathname) => pathname === TOOL_PROTOCOL_PATH,
    handle,
    close: () => clearInterval(heartbeat),
  };
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data).toString('utf8');
}
