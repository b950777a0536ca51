import type { FastifyInstance } from 'fastify';
import type { Logger } from '../log.js';
import type { HttpMount } from '../net/http-mount.js';
import { OWN_BEARER } from './security.js';

/**
 * Serves the endpoints other faces mount on the listener (net/http-mount.ts):
 * POST, GET and DELETE on the mount's path reach it after the Origin, Host and
 * query-credential checks, with the body parsed as the client API parses JSON.
 * Fastify lets go of the response; the mount writes it.
 */
export function registerMounts(app: FastifyInstance, mounts: readonly HttpMount[], log: Logger): void {
  for (const mount of mounts) {
    app.route({
      method: ['POST', 'GET', 'DELETE'],
      url: mount.path,
      config: OWN_BEARER,
      handler: async (request, reply) => {
        // Headers the hooks set (CORS for an allowed Origin, rate-limit counters) go out with the mount's answer.
        for (const [name, value] of Object.entries(reply.getHeaders())) {
          if (value !== undefined) reply.raw.setHeader(name, value as string | number | readonly string[]);
        }
        reply.hijack();
        try {
          await mount.handle(request.raw, reply.raw, request.params as Record<string, string>, request.body);
        } catch (err) {
          log.error({ err, mount: mount.name }, 'mounted endpoint failed');
          if (!reply.raw.headersSent) reply.raw.writeHead(500, { 'content-type': 'application/json' });
          reply.raw.end(JSON.stringify({ error: 'Internal error', code: 'internal_error' }));
        }
      },
    });
  }
}
