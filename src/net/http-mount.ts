import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * An HTTP endpoint that another face serves on the daemon's listener (the MCP
 * endpoint, src/mcpserve). The client API's hook still applies the Origin,
 * Host and query-credential checks to it (net/security.ts); the bearer is the
 * endpoint's own business, since it takes a different kind of token. The
 * HTTP face hands over the raw request and response with the parsed JSON body.
 */
export interface HttpMount {
  readonly name: string;
  /** A route pattern in fastify's syntax, e.g. `/session/:id/mcp`. */
  readonly path: string;
  handle(request: IncomingMessage, response: ServerResponse, params: Readonly<Record<string, string>>, body: unknown): Promise<void>;
}
