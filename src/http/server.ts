import Fastify, { type FastifyInstance } from 'fastify';
import { MAX_BODY_BYTES } from './limits.js';
import type { Core } from '../core.js';
import { BerthError } from '../protocol/errors/index.js';
import { installErrorHandlers } from './errors.js';
import { installRateLimit } from './rate-limit.js';
import { installSecurity } from './security.js';
import { httpModules } from './routes/index.js';

/** Builds the client API (seed 002) on fastify: security checks, JSON parsing, error mapping, routes. */
export function createHttpServer(core: Core, boundPort: () => number): FastifyInstance {
  const app = Fastify({
    logger: false,
    bodyLimit: MAX_BODY_BYTES,
    routerOptions: { maxParamLength: 1024 },
    return503OnClosing: true,
    forceCloseConnections: true,
    // Keep-alive sockets are closed on shutdown; SSE streams are ended by their own teardown.
    keepAliveTimeout: 5_000,
  });

  // Empty bodies are `{}` (the SDK sends `{}` or nothing); malformed JSON is 400 `invalid_json`.
  app.removeContentTypeParser(['application/json']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = (body as string).trim();
    if (text === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new BerthError('invalid_json'), undefined);
    }
  });

  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('X-Content-Type-Options', 'nosniff');
    return payload;
  });

  installErrorHandlers(app, core.log);
  installSecurity(app, { config: core.config, tokens: core.tokens, port: boundPort });
  // After the security hook: refused requests are not counted against anyone's window.
  installRateLimit(app, { tiers: core.config.rateLimits, clock: core.clock, health: core.health });
  for (const m of httpModules) m.register(app, core);
  return app;
}
