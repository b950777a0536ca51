import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ClusterPort, ForwardedRequest } from '../cluster/port.js';

/**
 * Session routes answered from the shared store on whichever node the request
 * reaches (docs/cluster-bus.md): they read PostgreSQL, not the live session.
 * The event stream is not forwarded either: `routes/events.ts` follows it over the bus.
 */
const SERVED_ON_ANY_NODE = new Set([
  '/session/:id/events',
  '/session/:id/transcript',
  '/session/:id/turn-index',
  '/session/:id/export',
]);

/** Connection-level headers: they describe the hop to this node, not the request. */
const HOP_HEADERS = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'upgrade', 'te', 'trailer']);

/**
 * Sends a request for a session another node runs to that node and answers with
 * its status, headers and body (docs/cluster-bus.md). Runs after this node's own
 * Origin, Host and bearer checks, and before validation, so every refusal about
 * the request itself is the owner's. Without a cluster nothing is installed.
 */
export function installForwarding(app: FastifyInstance, cluster: ClusterPort | undefined): void {
  if (cluster === undefined) return;
  app.addHook('preValidation', async (request, reply) => {
    const route = request.routeOptions.url;
    if (route === undefined || !route.startsWith('/session/:id') || SERVED_ON_ANY_NODE.has(route)) return;
    // A request the owner runs for another node is served there, whatever the placement says by now.
    if (cluster.isForwarded(request.headers)) return;
    const sessionId = (request.params as { id?: unknown }).id;
    if (typeof sessionId !== 'string') return;
    const where = await cluster.locate(sessionId);
    if (where.kind !== 'remote') return;
    const answer = await cluster.forward(where.nodeId, forwardedOf(request));
    const headers = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !HOP_HEADERS.has(name.toLowerCase())));
    return reply.code(answer.status).headers(headers).send(Buffer.from(answer.body, 'base64'));
  });
}

function forwardedOf(request: FastifyRequest): ForwardedRequest {
  const body = request.body === undefined ? undefined : Buffer.from(JSON.stringify(request.body)).toString('base64');
  return { method: request.method, url: request.url, headers: endToEnd(request.headers), remoteAddress: request.ip, ...(body !== undefined && { body }) };
}

/**
 * Checked by this node, for the connection the client opened to it: the owner would
 * judge them against its own address (a web app this node serves is its own origin).
 */
const CHECKED_HERE = new Set(['origin']);

function endToEnd(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_HEADERS.has(name) && !CHECKED_HERE.has(name)) out[name] = value;
  }
  return out;
}
