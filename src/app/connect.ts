import { TOOL_PROTOCOL_PATH } from '../protocol/toolproto/subprotocol.js';
import { BerthApp, type AppOptions } from './app.js';
import type { AnyAppToolSpec } from './tools.js';
import { openSocket, type TransportKind } from './transport.js';

export interface ConnectOptions extends AppOptions {
  /** The workspace to bind to: its id or absolute root (default: the daemon's primary workspace). */
  readonly workspace?: string;
  /** Tools registered before the host's first query, so its first catalog already has them. */
  readonly tools?: readonly AnyAppToolSpec[];
  readonly transport?: TransportKind;
}

/**
 * Connects to a daemon. `url` is the daemon's address (`http://host:port`,
 * the tool-protocol path is added) or the full `ws(s)://…/api/tools/v1/connect`.
 * Rejects with `ConnectRefused` (status and code) when the daemon refuses.
 */
export async function connect(url: string, token: string, options: ConnectOptions = {}): Promise<BerthApp> {
  const socket = await openSocket(endpointUrl(url, options.workspace), token, options.transport ?? 'auto');
  const app = new BerthApp(socket, options);
  for (const spec of options.tools ?? []) app.registerTool(spec);
  return app;
}

export function endpointUrl(url: string, workspace?: string): string {
  const target = new URL(url);
  if (target.protocol === 'http:') target.protocol = 'ws:';
  else if (target.protocol === 'https:') target.protocol = 'wss:';
  if (target.pathname === '/' || target.pathname === '') target.pathname = TOOL_PROTOCOL_PATH;
  if (workspace !== undefined) target.searchParams.set('workspace', workspace);
  return target.toString();
}
