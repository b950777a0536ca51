import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { BerthError } from '../protocol/errors/index.js';
import { errorBody } from './errors.js';

/**
 * WebSocket faces (gateway channel, tool protocol) share the HTTP listener.
 * Each registers the paths it owns; an upgrade for any other path is refused.
 */
export type UpgradeHandler = (request: IncomingMessage, socket: Duplex, head: Buffer) => void | Promise<void>;

export interface UpgradeRoute {
  readonly name: string;
  matches(pathname: string): boolean;
  readonly handle: UpgradeHandler;
}

export function rejectUpgrade(socket: Duplex, status: number, body: Record<string, unknown>, extraHeaders: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  const reason = STATUS_CODES[status] ?? 'Error';
  const head = [
    `HTTP/1.1 ${status} ${reason}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(text)}`,
    'Connection: close',
    ...Object.entries(extraHeaders).map(([k, v]) => `${k}: ${v}`),
  ];
  socket.end(head.join('\r\n') + '\r\n\r\n' + text);
}

/** Refuses an upgrade with a catalogue error: its status, the client API's error body, and Retry-After when it names a wait. */
export function rejectUpgradeWithError(socket: Duplex, err: BerthError): void {
  const after = err.retryAfterSeconds;
  rejectUpgrade(socket, err.status, errorBody(err), after !== undefined ? { 'Retry-After': String(after) } : {});
}

export function dispatchUpgrade(routes: readonly UpgradeRoute[]): UpgradeHandler {
  return (request, socket, head) => {
    socket.on('error', () => socket.destroy());
    const pathname = (request.url ?? '/').split('?')[0]!;
    const route = routes.find((r) => r.matches(pathname));
    if (!route) {
      rejectUpgrade(socket, 404, { error: 'No WebSocket endpoint at this path', code: 'route_not_found', status: 404 });
      return;
    }
    // A route checks its bearer against the (asynchronous) store; what it does not refuse itself ends the socket.
    void Promise.resolve()
      .then(() => route.handle(request, socket, head))
      .catch(() => socket.destroy());
  };
}
