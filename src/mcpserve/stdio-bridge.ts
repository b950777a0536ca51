import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export interface BridgeTarget {
  /** The daemon's base URL (`http://127.0.0.1:4170`). */
  readonly url: string;
  readonly sessionId: string;
  /** A tab token of that session: sent as the bearer, never in the URL. */
  readonly token: string;
}

/** The MCP endpoint of a session (src/mcpserve/endpoint.ts `MCP_PATH`). */
export function endpointUrl(target: Pick<BridgeTarget, 'url' | 'sessionId'>): URL {
  return new URL(`/session/${encodeURIComponent(target.sessionId)}/mcp`, target.url);
}

/**
 * `berth mcp` on stdio as a relay to the daemon's MCP endpoint: every message
 * an agent writes goes to `POST /session/{id}/mcp`, every answer comes back on
 * stdout. The daemon serves the one catalog (src/mcpserve/catalog.ts), so the
 * stdio and HTTP servers cannot drift apart; the relay itself decides nothing.
 * A request the daemon cannot be asked (refused token, daemon down) is answered
 * with a JSON-RPC error, so the agent is never left waiting.
 */
export async function relayStdio(target: BridgeTarget, onError: (message: string) => void): Promise<void> {
  const stdio = new StdioServerTransport();
  const http = new StreamableHTTPClientTransport(endpointUrl(target), {
    requestInit: { headers: { authorization: `Bearer ${target.token}` } },
  });
  http.onmessage = (message) => {
    // The version the two ends agreed on travels as a header on every later request (the MCP transport specification).
    const version = (message as { result?: { protocolVersion?: unknown } }).result?.protocolVersion;
    if (typeof version === 'string') http.setProtocolVersion(version);
    void stdio.send(message);
  };
  http.onerror = (err) => onError(`berth mcp: ${err.message}`);
  stdio.onmessage = (message: JSONRPCMessage) => {
    http.send(message).catch((err: Error) => {
      const id = (message as { id?: string | number }).id;
      if (id === undefined || !('method' in message)) return;
      void stdio.send({ jsonrpc: '2.0', id, error: { code: -32603, message: `The Berth daemon could not be asked: ${err.message}` } });
    });
  };
  let closing = false;
  const close = () => {
    if (closing) return;
    closing = true;
    void http.close();
    void stdio.close();
  };
  stdio.onclose = close;
  process.stdin.once('end', close);
  await http.start();
  await stdio.start();
}
