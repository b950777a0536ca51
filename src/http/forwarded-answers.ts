import type { IncomingHttpHeaders } from 'node:http';
import type { ForwardedRequest, ForwardedResponse } from '../cluster/port.js';
import type { Core } from '../core.js';
import { errorBody } from '../net/errors.js';
import { checkOrigin, type SecurityContext } from '../net/security.js';
import type { BerthError } from '../protocol/errors/index.js';
import { JSON_TYPE, errorHeaders, routeError } from './errors.js';
import { sessionStatus } from './routes/sessions.js';
import type { RateLimiter } from './rate-limit.js';
import { refusalOf } from './security.js';
import { EVERY_ANSWER_HEADERS } from './server.js';

/**
 * The forwarded requests the owner answers without a pass through fastify (docs/cluster-bus.md,
 * What a forwarded request costs): the same checks its hooks make, the same operation its route
 * calls and the same encoding, so the status, headers and body are those of `app.inject`, at a
 * fraction of its cost. One operation per route, keyed by the method and the path after the id.
 */
const DIRECT: Readonly<Record<string, (core: Core, sessionId: string) => Promise<unknown>>> = {
  'GET status': sessionStatus,
};

/** `/session/<id>/<operation>`, the id one subject token, so it needs no percent-decoding (the router's job otherwise). */
const SESSION_PATH = /^\/session\/([A-Za-z0-9_-]{1,128})\/([a-z-]+)$/;

/**
 * Returns the answer to `request`, or `undefined` for a request this cannot answer exactly as
 * fastify would, which then runs through `app.inject` as before: another route, an Origin (this
 * node would add CORS headers), or an anonymous daemon (its local-user check needs the client's
 * socket, which a forwarded request has none of). `limiter` is the one the app's hook counts with.
 */
export function directForwardedAnswers(core: Core, boundPort: () => number, limiter: RateLimiter | undefined) {
  const security: SecurityContext = { config: core.config, tokens: core.tokens, port: boundPort };
  return (request: ForwardedRequest, host: string): Promise<ForwardedResponse> | undefined => {
    if (!core.tokens.hasOwnerToken) return undefined;
    const q = request.url.indexOf('?');
    const match = SESSION_PATH.exec(q < 0 ? request.url : request.url.slice(0, q));
    const operation = match && DIRECT[`${request.method} ${match[2]}`];
    if (!operation) return undefined;
    const headers: IncomingHttpHeaders = { ...request.headers, host };
    if (checkOrigin(headers, security).kind !== 'none') return undefined;
    const checked = { method: request.method, url: request.url, headers, ip: request.remoteAddress ?? INJECTED_ADDRESS };
    return answer(checked, { security, limiter, core }, () => operation(core, match[1]!));
  };
}

/** The address light-my-request gives a request that names none, which `inject` would have counted it under. */
const INJECTED_ADDRESS = '127.0.0.1';

interface Checked {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly ip: string;
}

/** The hooks' order: the security checks, then the rate limit (whose headers every later answer carries), then the route. */
async function answer(
  request: Checked,
  ctx: { readonly security: SecurityContext; readonly limiter: RateLimiter | undefined; readonly core: Core },
  operation: () => Promise<unknown>,
): Promise<ForwardedResponse> {
  const refused = await refusalOf(request, ctx.security, ctx.core.config.web, false);
  if (refused) return errorAnswer(refused, {});
  const rate = ctx.limiter?.(request.method, request.url, request.headers, request.ip);
  const rateHeaders = rate?.headers ?? {};
  if (rate?.refusal) return errorAnswer(rate.refusal, rateHeaders);
  let value: unknown;
  try {
    value = await operation();
  } catch (err) {
    return errorAnswer(routeError(err, request, ctx.core.log), rateHeaders);
  }
  return jsonAnswer(200, rateHeaders, value);
}

function errorAnswer(err: BerthError, headers: Readonly<Record<string, string>>): ForwardedResponse {
  return jsonAnswer(err.status, { ...headers, ...errorHeaders(err) }, errorBody(err));
}

function jsonAnswer(status: number, headers: Readonly<Record<string, string>>, value: unknown): ForwardedResponse {
  const body = Buffer.from(JSON.stringify(value));
  return {
    status,
    headers: { ...headers, ...EVERY_ANSWER_HEADERS, 'content-type': JSON_TYPE, 'content-length': String(body.length) },
    body: body.toString('base64'),
  };
}
