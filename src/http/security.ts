import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { isLoopbackHost } from '../config/config.js';
import { checkHost, checkOrigin, identify, queryCredentials, type SecurityContext } from '../net/security.js';
import { BerthError } from '../protocol/errors/index.js';
import { sendError } from './errors.js';
import { isPublicWebRequest } from './web-app.js';

// Mcp-Protocol-Version: what an MCP client in an allowed browser page sends to the MCP endpoint (docs/mcp-server.md).
const CORS_ALLOW_HEADERS = 'Authorization, Content-Type, X-Qwen-Client-Id, Last-Event-ID, X-Qwen-Event-Epoch, Mcp-Protocol-Version';
const CORS_EXPOSE_HEADERS = 'Retry-After, X-Qwen-Event-Epoch, X-Qwen-SSE-Stream-Id';

/**
 * May this request use the client API? Channel and application tokens never may
 * (docs/architecture.md: a channel token is refused everywhere else). With an owner token
 * configured, only it may — except `GET /health` on a plain loopback bind (docs/client-api.md §2.5).
 */
export async function authorizeClientApi(
  headers: IncomingHttpHeaders,
  path: string,
  ctx: SecurityContext,
): Promise<BerthError | null> {
  const who = await identify(headers, ctx);
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

/** Route config of an endpoint that checks its own bearer (net/http-mount.ts): the other checks still apply. */
export const OWN_BEARER = { ownBearer: true } as const;

function ownsBearer(config: unknown): boolean {
  return typeof config === 'object' && config !== null && (config as { ownBearer?: unknown }).ownBearer === true;
}

/**
 * Installs the checks, in qwen's order (docs/client-api.md §1): Origin → Host → query credentials → bearer.
 * With the web app on, its page and assets skip only the bearer check: the page must load to ask for the token.
 * A mounted endpoint (net/http-mount.ts) skips it too: it checks its own kind of token.
 */
export function installSecurity(app: FastifyInstance, ctx: SecurityContext, webApp = false): void {
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
    const failure = await refusalOf(request, ctx, webApp, ownsBearer(request.routeOptions.config));
    if (failure) return sendError(reply, failure);
    return undefined;
  });
}

/** The checks after Origin, in their order: Host, query credentials, bearer (skipped for the web app's public files and an endpoint that checks its own). */
export async function refusalOf(
  request: { readonly method: string; readonly url: string; readonly headers: IncomingHttpHeaders },
  ctx: SecurityContext,
  webApp: boolean,
  ownBearer: boolean,
): Promise<BerthError | null> {
  const path = request.url.split('?')[0]!;
  return (
    checkHost(request.headers, ctx) ??
    queryCredentials(request.url) ??
    ((webApp && isPublicWebRequest(request.method, path, request.headers.accept)) || ownBearer ? null : await authorizeClientApi(request.headers, path, ctx))
  );
}
