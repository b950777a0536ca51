import type { IncomingMessage, ServerResponse } from 'node:http';
import Fastify, { type FastifyInstance } from 'fastify';
import { MAX_BODY_BYTES } from './limits.js';
import { MAX_JSON_DEPTH } from '../protocol/limits.js';
import { exceedsJsonDepth } from '../protocol/json-depth.js';
import type { Core } from '../core.js';
import { BerthError } from '../protocol/errors/index.js';
import { answerClientError } from './client-error.js';
import { createBoundedServer } from './connection-limits.js';
import { installErrorHandlers, sendError } from './errors.js';
import { installForwarding } from './forwarding.js';
import { installLocalUserCheck } from './local-peer.js';
import { httpRateLimiter, installRateLimit, type RateLimiter } from './rate-limit.js';
import { installSecurity } from './security.js';
import { registerMounts } from './mounts.js';
import type { HttpMount } from '../net/http-mount.js';
import { httpModules } from './routes/index.js';

/** Headers on every answer of the client API: no browser guesses a type other than the one given. */
export const EVERY_ANSWER_HEADERS: Readonly<Record<string, string>> = { 'x-content-type-options': 'nosniff' };

/** Builds the client API (contract/openapi.json) on fastify: security checks, JSON parsing, error mapping, routes. */
export function createHttpServer(
  core: Core,
  boundPort: () => number,
  mounts: readonly HttpMount[] = [],
  limiter: RateLimiter | undefined = httpRateLimiter(core),
): FastifyInstance {
  const app = Fastify({
    logger: false,
    bodyLimit: MAX_BODY_BYTES,
    routerOptions: { maxParamLength: 1024 },
    return503OnClosing: true,
    forceCloseConnections: true,
    // Parser refusals close the connection and say so (src/http/client-error.ts).
    clientErrorHandler: answerClientError,
    // Request, header, idle and keep-alive deadlines and the connection caps.
    serverFactory: (handler) => createBoundedServer(core.config.httpLimits, headAsGet(handler)),
    // HEAD is answered by the GET route (headAsGet below) instead of a HEAD route fastify would add beside
    // each GET: those were about 80 of the ~220 routes registered before the port opened.
    exposeHeadRoutes: false,
    // A path fastify cannot decode (bad percent-encoding) or a parameter over the length limit is the
    // client's error: answer it with the contract's Error body like any other refusal, not fastify's own.
    frameworkErrors: (err, _request, reply) => {
      const message = err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'A path parameter is too long' : 'The path is not valid percent-encoded UTF-8';
      void sendError(reply, new BerthError('invalid_request', message));
    },
    // No route declares a fastify schema: bodies are checked against the contract by http/contract.ts and answers are
    // plain JSON. Given compilers of its own, fastify does not load its Ajv and fast-json-stringify ones at start-up.
    schemaController: { compilersFactory: { buildValidator: noRouteSchemas, buildSerializer: noRouteSchemas } },
  });

  // Empty bodies are `{}` (the SDK sends `{}` or nothing); malformed JSON is 400 `invalid_json`.
  app.removeContentTypeParser(['application/json']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = (body as string).trim();
    if (text === '') return done(null, undefined);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return done(new BerthError('invalid_json'), undefined);
    }
    if (exceedsJsonDepth(value, MAX_JSON_DEPTH)) {
      return done(new BerthError('nesting_too_deep', `the body nests deeper than ${MAX_JSON_DEPTH} levels`, { limit: MAX_JSON_DEPTH }), undefined);
    }
    done(null, value);
  });

  app.addHook('onSend', async (_request, reply, payload) => {
    reply.headers(EVERY_ANSWER_HEADERS);
    return payload;
  });

  installErrorHandlers(app, core.log);
  installSecurity(app, { config: core.config, tokens: core.tokens, port: boundPort }, core.config.web);
  // Anonymous loopback mode trusts this user's processes, not every local user's (issue 16, finding 7).
  installLocalUserCheck(app, { config: core.config, tokens: core.tokens });
  // After the security hook: refused requests are not counted against anyone's window.
  installRateLimit(app, limiter);
  // After the checks above, which this node makes for the connection the client opened to it.
  installForwarding(app, core.cluster);
  for (const m of httpModules) m.register(app, core);
  registerMounts(app, mounts, core.log);
  return app;
}

/**
 * Routes a HEAD request as the GET of its URL. Node made the response bodiless when the request
 * arrived as HEAD (its status and headers go out, whatever the handler writes does not), so the
 * client gets what fastify's own HEAD routes sent, without a second route per GET.
 */
function headAsGet(handler: (req: IncomingMessage, res: ServerResponse) => void): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    if (req.method === 'HEAD') req.method = 'GET';
    handler(req, res);
  };
}

/** The compilers fastify gets for route schemas, which Berth's routes do not declare; one that did is refused when registered. */
function noRouteSchemas(): () => never {
  return () => {
    throw new Error('Berth routes declare no fastify schema: check bodies with parseBody (http/contract.ts)');
  };
}
