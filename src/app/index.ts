/**
 * `berth/app` — the application SDK of Berth's tool protocol (seed 003,
 * issue 7). An application (a Node service, a browser page) connects to a
 * daemon with an application token and publishes tools; the daemon's agents
 * discover them through `workspace_tools` and call them through
 * `workspace_tool`, under the daemon's guard, permissions and receipts.
 *
 *   const app = await connect('http://127.0.0.1:4170', token);
 *   app.registerTool({ id: 'notes.add', description: 'Add a note', category: 'notes',
 *     policy: 'write', inputSchema: { type: 'object', properties: { text: { type: 'string' } },
 *     required: ['text'], additionalProperties: false }, handler: ({ text }) => notes.add(text) });
 *
 * Authentication: under Node the token travels as `Authorization: Bearer`;
 * in a browser, which cannot set that header on a WebSocket, as the
 * `berth.bearer.<token>` subprotocol. Never in the URL.
 */
import { TOOL_PROTOCOL_PATH } from '../protocol/toolproto/subprotocol.js';
import { BerthApp, type AppOptions } from './app.js';
import type { AnyAppToolSpec } from './tools.js';
import { openSocket, type TransportKind } from './transport.js';

export { BerthApp, type AppOptions, type CloseInfo } from './app.js';
export { ToolReply, type EvidenceHooks, type Screenshot } from './calls.js';
export {
  AppToolError,
  type AnyAppToolSpec,
  type AppToolSpec,
  type FlattenedToolHandler,
  type FlattenedToolSpec,
  type ToolCallContext,
  type ToolHandler,
} from './tools.js';
export { ConnectRefused, type TransportKind } from './transport.js';
export type { WireError as Notice } from '../protocol/toolproto/outcomes.js';
export type { Policy, ToolAvailability } from '../protocol/tools/types.js';
export { TOOL_PROTOCOL_PATH, TOOL_SUBPROTOCOL, BEARER_SUBPROTOCOL_PREFIX } from '../protocol/toolproto/subprotocol.js';

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
