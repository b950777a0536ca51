/**
 * `berth/app` — the application SDK of Berth's tool protocol
 * (docs/tool-protocol.md). An application (a Node service, a browser page) connects to a
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
export { connect, endpointUrl, type ConnectOptions } from './connect.js';
