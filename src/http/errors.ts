import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '../log.js';
import { errorBody } from '../net/errors.js';
import { BerthError, asBerthError } from '../protocol/errors/index.js';

/** The type of every JSON answer, as fastify gives a route's object. */
export const JSON_TYPE = 'application/json; charset=utf-8';

/** An error answer's headers besides its type: `Retry-After` when the error names a wait. */
export function errorHeaders(err: BerthError): Record<string, string> {
  const after = err.retryAfterSeconds;
  return after === undefined ? {} : { 'retry-after': String(after) };
}

export function sendError(reply: FastifyReply, err: BerthError): FastifyReply {
  return reply.code(err.status).headers(errorHeaders(err)).type(JSON_TYPE).send(errorBody(err));
}

/** Fastify's own errors (body limit, parser) and anything unexpected, mapped to catalogue codes. */
export function toBerthError(err: unknown): BerthError {
  if (err instanceof BerthError) return err;
  const fe = err as FastifyError;
  switch (fe?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new BerthError('body_too_large', 'Request body too large (max 10 MB)');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new BerthError('invalid_json');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new BerthError('invalid_request', 'Request bodies must be application/json');
    case 'FST_ERR_VALIDATION':
      return new BerthError('invalid_request', fe.message);
  }
  if (fe && typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new BerthError('invalid_request', fe.message);
  }
  return asBerthError(err);
}

/** What a route's failure answers: its catalogue error, and a log line when it was not one (an unexpected failure). */
export function routeError(err: unknown, request: { readonly method: string; readonly url: string }, log: Logger): BerthError {
  const be = toBerthError(err);
  if (be.status >= 500 && !(err instanceof BerthError)) {
    log.error({ err, method: request.method, url: request.url }, 'unhandled route error');
  }
  return be;
}

export function installErrorHandlers(
  app: import('fastify').FastifyInstance,
  log: Logger,
): void {
  app.setErrorHandler((err: unknown, request: FastifyRequest, reply: FastifyReply) => sendError(reply, routeError(err, request, log)));
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, new BerthError('route_not_found', `Cannot ${request.method} ${request.url.split('?')[0]}`)),
  );
}
