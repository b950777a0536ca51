import type { IncomingHttpHeaders } from 'node:http';
import { isLoopbackHost, type Config } from '../config/config.js';
import { BerthError } from '../protocol/errors/index.js';
import { bearerOf, type TokenIdentity, type TokenService } from '../tokens/tokens.js';

/**
 * The checks every face keeps (docs/architecture.md, Security rules; docs/client-api.md §2): Origin
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
export async function identify(headers: IncomingHttpHeaders, ctx: SecurityContext): Promise<TokenIdentity | null> {
  const bearer = bearerOf(header(headers, 'authorization'));
  return bearer === null ? null : ctx.tokens.identify(bearer);
}
