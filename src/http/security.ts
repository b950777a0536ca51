import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { isLoopbackHost, type Config } from '../config/config.js';
import { BerthError } from '../errors/index.js';
import { bearerOf, type TokenIdentity, type TokenService } from '../tokens/tokens.js';
import { sendError } from './errors.js';

/**
 * The checks every face keeps (design.md, Security rules; spec §2): Origin
 * allow-list, Host allow-list on loopback binds (DNS rebinding), no credentials
 * in query strings, and bearer tokens by scope. Written as pure functions so the
 * WebSocket faces apply the same rules to their upgrade requests.
 */
export interface SecurityContext {
  /** Only what the checks read, so a listener without a whole daemon Config (`berth connect --tools-listen`) can keep them too. */
  readonly config: Pick<Config, 'hostname' | 'allowOrigins' | 'requireAuth'>;
  readonly tokens: TokenService;
  /** The port actually bound (differs from config.port when that is 0). */
  port(): number;
}

const CORS_ALLOW_HEADERS = 'Authorization, Content-Type, X-Qwen-Client-Id, Last-Event-ID, X-Qwen-Event-Epoch';
const CORS_EXPOSE_HEADERS = 'Retry-After, X-Qwen-Event-Epoch, X-Qwen-SSE-Stream-Id';
const QUERY_CREDENTIAL_NAMES = /^(access[_-]?token|token|auth|authorization|api[_-]?key|apikey|bearer|password|secret)$/i;

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function loopbackNames(ctx: SecurityContext): string[] {
  const names = ['localhost', '127.0.0.1', '[::1]', 'host.docker.internal'];
  const bound = ctx.config.hostname.toLowerCase();
  const boundName = bound.includes(':') && !bound.startsWith('[') ? `[${bound}]` : bound;
  if (!names.includes(boundName)) names.push(boundName);
  return names;
}

/** The daemon's own origins, which a bundled web UI uses; they pass without an allow-list entry. */
function isSameOrigin(origin: string, ctx: SecurityContext): boolean {
  const port = ctx.port();
  const lower = origin.toLowerCase();
  for (const name of loopbackNames(ctx)) {
    for (const scheme of ['http', 'https']) {
      if (lower === `${scheme}://${name}:${port}`) return true;
      if ((port === 80 && scheme === 'http') || (port === 443 && scheme === 'https')) {
        if (lower === `${scheme}://${name}`) return true;
      }
    }
  }
  return false;
}

export type OriginVerdict = { kind: 'none' } | { kind: 'allowed'; origin: string } | { kind: 'denied' };

export function checkOrigin(headers: IncomingHttpHeaders, ctx: SecurityContext): OriginVerdict {
  const origin = header(headers, 'origin');
  if (origin === undefined) return { kind: 'none' };
  if (origin !== 'null' && isSameOrigin(origin, ctx)) return { kind: 'none' };
  const allowed = ctx.config.allowOrigins;
  if (origin !== 'null' && (allowed.includes('*') || allowed.some((a) => a.toLowerCase() === origin.toLowerCase()))) {
    return { kind: 'allowed', origin };
  }
  return { kind: 'denied' };
}

/** On loopback binds the Host header must name a loopback host with our port (no DNS rebinding). */
export function checkHost(headers: IncomingHttpHeaders, ctx: SecurityContext): BerthError | null {
  if (!isLoopbackHost(ctx.config.hostname)) return null;
  const host = (header(headers, 'host') ?? '').toLowerCase();
  const port = ctx.port();
  for (const name of loopbackNames(ctx)) {
    if (host === `${name}:${port}`) return null;
    if ((port === 80 || port === 443) && host === name) return null;
  }
  return new BerthError('invalid_host');
}

export function queryCredentials(url: string): BerthError | null {
  const q = url.indexOf('?');
  if (q < 0) return null;
  for (const key of new URLSearchParams(url.slice(q + 1)).keys()) {
    if (QUERY_CREDENTIAL_NAMES.test(key)) {
      return new BerthError('credentials_in_query', `Credentials are not accepted in the query string (${key})`);
    }
  }
  return null;
}

/** Who presented which bearer: null when none (or unknown on an anonymous daemon). */
export function identify(headers: IncomingHttpHeaders, ctx: SecurityContext): TokenIdentity | null {
  const bearer = bearerOf(header(headers, 'authorization'));
  return bearer === null ? null : ctx.tokens.identify(bearer);
}

/**
 * May this request use the client API? Channel and application tokens never may
 * (design.md: a channel token is refused everywhere else). With an owner token
 * configured, only it may — except `GET /health` on a plain loopback bind (spec §2.5).
 */
export function authorizeClientApi(
  headers: IncomingHttpHeaders,
  path: string,
  ctx: SecurityContext,
): BerthError | null {
  const who = identify(headers, ctx);
  if (who !== null && who.scope !== 'owner') {
    return new BerthError('token_scope_denied', `A ${who.scope} token cannot use the client API`);
  }
  if (!ctx.tokens.hasOwnerToken) return null;
  const healthExempt = path === '/health' && isLoopbackHost(ctx.config.hostname) && !ctx.config.requireAuth;
  if (healthExempt || who?.scope === 'owner') return null;
  return new BerthError('unauthorized');
}

function corsHeaders(origin: string): Record<string, string> {
  return {
    'access-control-allow-origin': origin,
    vary: 'Origin',
    'access-control-allow-methods': 'GET, POST, PATCH, DELETE, OPTIONS',
    'access-control-allow-headers': CORS_ALLOW_HEADERS,
    'access-control-max-age': '86400',
    'access-control-expose-headers': CORS_EXPOSE_HEADERS,
  };
}

/** Installs the checks, in qwen's order (spec §1): Origin → Host → query credentials → bearer. */
export function installSecurity(app: FastifyInstance, ctx: SecurityContext): void {
  app.addHook('onRequest', async (request, reply) => {
    const origin = checkOrigin(request.headers, ctx);
    if (origin.kind === 'denied') {
      reply.header('Vary', 'Origin');
      return sendError(reply, new BerthError('cors_denied'));
    }
    if (origin.kind === 'allowed') {
      reply.headers(corsHeaders(origin.origin));
      const preflight =
        request.method === 'OPTIONS' &&
        (request.headers['access-control-request-method'] !== undefined ||
          request.headers['access-control-request-headers'] !== undefined);
      if (preflight) return reply.code(204).send();
    }
    const failure =
      checkHost(request.headers, ctx) ??
      queryCredentials(request.url) ??
      authorizeClientApi(request.headers, request.url.split('?')[0]!, ctx);
    if (failure) return sendError(reply, failure);
    return undefined;
  });
}
