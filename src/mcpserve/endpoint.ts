import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../log.js';
import type { MessagingService } from '../messaging/service.js';
import { errorBody } from '../net/errors.js';
import type { HttpMount } from '../net/http-mount.js';
import { BerthError, asBerthError } from '../protocol/errors/index.js';
import type { SessionManager } from '../sessions/manager.js';
import { bearerOf } from '../tokens/tokens.js';
import { SessionMcpCatalog, type CatalogDeps } from './catalog.js';

/** Where the endpoint listens: one per session, so the URL names the session and the token must speak for it. */
export const MCP_PATH = '/session/:id/mcp';

export interface McpEndpointDeps extends CatalogDeps {
  readonly messaging: CatalogDeps['messaging'] & Pick<MessagingService, 'speaksFor'>;
  readonly sessions: Pick<SessionManager, 'open'>;
  readonly log: Logger;
}

/**
 * Berth as an MCP server over streamable HTTP (docs/mcp-server.md): `POST
 * /session/{id}/mcp` with a tab token of that session as the bearer. The
 * client API's hook has checked Origin, Host and query credentials already
 * (http/mounts.ts); here only a module token that speaks for the session
 * passes — an owner, channel or application token, or another tab's, is 401.
 *
 * Stateless: each POST gets a fresh server and transport that live as long
 * as its response, so the endpoint keeps no state between requests and a
 * call waiting for a person's vote holds only its own response. GET (a
 * standalone event stream) and DELETE (ending an MCP session) have nothing to
 * serve and answer 405, as the transport specification allows.
 */
export function mcpEndpoint(deps: McpEndpointDeps): HttpMount {
  return {
    name: 'mcp',
    path: MCP_PATH,
    async handle(request, response, params, body) {
      const sessionId = params.id ?? '';
      if (request.method !== 'POST') {
        return refuse(response, new BerthError('method_not_allowed', 'The MCP endpoint answers POST only (stateless streamable HTTP)'), { allow: 'POST' });
      }
      const bearer = bearerOf(header(request, 'authorization'));
      if (bearer === null || !(await deps.messaging.speaksFor(bearer, sessionId))) {
        return refuse(response, new BerthError('unauthorized', 'The MCP endpoint takes a tab token of this session as the bearer'), {
          'www-authenticate': 'Bearer',
        });
      }
      let session;
      try {
        session = await deps.sessions.open(sessionId);
      } catch (err) {
        return refuse(response, asBerthError(err));
      }
      // A call waiting for a vote gives up when its client goes away: its permission request resolves as cancelled.
      const gone = new AbortController();
      response.once('close', () => gone.abort());
      // The MCP SDK loads with the first MCP request, not at start-up (issue 17).
      const [{ createMcpServer }, { StreamableHTTPServerTransport }] = await Promise.all([
        import('./server.js'),
        import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
      ]);
      const server = createMcpServer(new SessionMcpCatalog(deps, session), gone.signal);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      response.once('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(request, response, body);
    },
  };
}

function header(request: IncomingMessage, name: string): string | undefined {
  const v = request.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function refuse(response: ServerResponse, err: BerthError, headers: Record<string, string> = {}): void {
  response.writeHead(err.status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  response.end(JSON.stringify(errorBody(err)));
}
