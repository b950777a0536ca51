import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { HttpLimits } from '../config/http-limits.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The node HTTP server under fastify, with every timeout set. Node checks the
 * request and header deadlines on a sweep (`connectionsCheckingInterval`,
 * 30 s by default); the sweep runs often enough here that a deadline is kept
 * to within a quarter of itself.
 */
export function createBoundedServer(limits: HttpLimits, handler: Handler): Server {
  const server = createServer(
    {
      requestTimeout: limits.requestTimeoutMs,
      headersTimeout: limits.headersTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4))),
    },
    handler,
  );
  server.setTimeout(limits.idleTimeoutMs);
  capConnections(server, limits);
  return server;
}

/**
 * Refuses connections beyond the daemon-wide and per-address caps by closing
 * them at once (before a byte is read): the peer sees a reset and may retry.
 * The per-address count is dropped with its last connection, so it cannot grow.
 */
export function capConnections(server: Server, limits: HttpLimits): void {
  server.maxConnections = limits.maxConnections;
  const perAddress = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? 'unknown';
    const held = perAddress.get(address) ?? 0;
    if (held >= limits.maxConnectionsPerAddress) {
      socket.destroy();
      return;
    }
    perAddress.set(address, held + 1);
    socket.once('close', () => {
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left <= 0) perAddress.delete(address);
      else perAddress.set(address, left);
    });
  });
}
