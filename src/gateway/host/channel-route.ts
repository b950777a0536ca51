import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { GATEWAY_PING_INTERVAL_MS } from '../limits.js';
import { writesOfOneTick } from '../../net/tick-writes.js';
import { BerthError } from '../../protocol/errors/index.js';
import type { Logger } from '../../log.js';
import { checkHost, checkOrigin, identify, queryCredentials, type SecurityContext } from '../../net/security.js';
import { rejectUpgradeWithError, type UpgradeRoute } from '../../net/upgrade.js';
import { CHANNEL_PATH, CLOSE, encodeFrame, parseOwnerFrame, READY_FRAME, UnreadableFrame } from '../../protocol/gateway/frames.js';
import type { ChannelHub, ChannelIdentity, ChannelReservation } from './hub.js';

export interface ChannelRouteDeps {
  readonly security: SecurityContext;
  readonly hub: ChannelHub;
  readonly log: Logger;
  /** docs/gateway.md `limits.frameBytes`: a larger frame closes the channel with 1009. */
  readonly maxFrameBytes: number;
  readonly pingIntervalMs?: number;
}

/** After sending a close frame, a peer that does not answer is cut after this long. */
const CLOSE_HANDSHAKE_GRACE_MS = 2_000;

/**
 * The B-side WebSocket face of the gateway channel (docs/gateway.md `endpoint`),
 * on the daemon's shared listener. It admits the upgrade (Origin, Host, no
 * query credentials, a channel token for exactly this workspace, the hub's
 * limits), sends `ready`, and translates frames to hub calls; the hub decides
 * everything else. Nothing here redirects.
 */
export function channelUpgradeRoute(deps: ChannelRouteDeps): UpgradeRoute {
  const wss = new WebSocketServer({ noServer: true, maxPayload: deps.maxFrameBytes, perMessageDeflate: false });
  return {
    name: 'gateway-channel',
    matches: (pathname) => CHANNEL_PATH.test(pathname),
    async handle(request, socket, head) {
      let reservation: ChannelReservation;
      try {
        reservation = await deps.hub.admit(await admit(request, deps.security));
      } catch (err) {
        const refusal = err instanceof BerthError ? err : new BerthError('internal_error');
        rejectUpgradeWithError(socket, refusal);
        return;
      }
      if (socket.destroyed) return reservation.release();
      // A handshake ws refuses (bad key, wrong method) never reaches the callback: free the slot with the socket.
      socket.once('close', () => reservation.release());
      wss.handleUpgrade(request, socket as Duplex, head, (ws) => serve(ws, writesOfOneTick(socket as Duplex), reservation, deps));
    },
  };
}

/** The upgrade's checks, in the client API's order (docs/client-api.md §1): Origin → Host → query credentials → bearer scope. */
async function admit(request: IncomingMessage, security: SecurityContext): Promise<ChannelIdentity> {
  const url = request.url ?? '/';
  const pathname = url.split('?')[0]!;
  let workspaceId: string;
  try {
    workspaceId = decodeURIComponent(CHANNEL_PATH.exec(pathname)![1]!);
  } catch {
    throw new BerthError('invalid_request', 'The workspace id in the channel path is not valid percent-encoding');
  }
  if (checkOrigin(request.headers, security).kind === 'denied') throw new BerthError('cors_denied');
  const badHost = checkHost(request.headers, security) ?? queryCredentials(url);
  if (badHost) throw badHost;
  if (url.includes('?')) throw new BerthError('invalid_request', 'The channel endpoint takes no query parameters');
  if (!request.headers.authorization) {
    throw new BerthError('token_required', 'A gateway channel needs `Authorization: Bearer <channel token>`');
  }
  const who = await identify(request.headers, security);
  if (who === null) throw new BerthError('unauthorized');
  if (who.scope !== 'channel') {
    throw new BerthError('token_scope_denied', `A ${who.scope} token cannot open a gateway channel; create a channel token`);
  }
  if (who.workspaceId !== workspaceId) {
    throw new BerthError('token_scope_denied', 'This channel token belongs to another workspace');
  }
  return { tokenId: who.tokenId, workspaceId };
}

/** One accepted channel: `ready`, then result frames in, call frames out, pings to notice a dead peer. */
function serve(ws: WebSocket, holdWrites: () => void, reservation: ChannelReservation, deps: ChannelRouteDeps): void {
  ws.send(encodeFrame(READY_FRAME));
  let closing: NodeJS.Timeout | undefined;
  const close = (code: number, reason: string) => {
    ws.close(code, reason);
    closing ??= setTimeout(() => ws.terminate(), CLOSE_HANDSHAKE_GRACE_MS);
    closing.unref();
  };
  const send = (text: string) => {
    holdWrites();
    ws.send(text, () => undefined);
  };
  const channel = reservation.open({ send, close });

  let alive = true;
  const ping = setInterval(() => {
    if (!alive) {
      ws.terminate();
      return;
    }
    alive = false;
    ws.ping();
  }, deps.pingIntervalMs ?? GATEWAY_PING_INTERVAL_MS);
  ping.unref();
  ws.on('pong', () => (alive = true));

  ws.on('message', (data: RawData, isBinary: boolean) => {
    alive = true;
    if (isBinary) {
      close(CLOSE.unsupportedData, 'channel frames are JSON text');
      return;
    }
    try {
      channel.received(parseOwnerFrame(data.toString()));
    } catch (err) {
      const code = err instanceof UnreadableFrame ? CLOSE.invalidPayload : CLOSE.protocolError;
      deps.log.warn({ channelId: channel.id, err: (err as Error).message }, 'gateway frame refused');
      close(code, (err as Error).message.slice(0, 120));
    }
  });
  // ws closes an oversized frame itself with 1009 (maxPayload) and reports it here first.
  ws.on('error', (err) => deps.log.debug({ channelId: channel.id, err: err.message }, 'gateway channel error'));
  ws.once('close', () => {
    clearInterval(ping);
    clearTimeout(closing);
    channel.closed();
  });
}
