/**
 * How an application reaches the tool protocol, shared by the
 * daemon and the `berth/app` SDK; no Node modules here, browsers load it.
 */

/** docs/tool-protocol.md over Berth: where applications connect. */
export const TOOL_PROTOCOL_PATH = '/api/tools/v1/connect';

/** The subprotocol the daemon selects; a client must offer it. */
export const TOOL_SUBPROTOCOL = 'berth.tools.v1';

/**
 * Browsers cannot set `Authorization` on a WebSocket, and tokens never go in
 * the URL (docs/architecture.md, Security). So a browser app offers its token as a
 * second subprotocol, `berth.bearer.<token>` (app tokens are base64url, valid
 * subprotocol characters), next to TOOL_SUBPROTOCOL, which is the one the
 * daemon selects — the token is never echoed back.
 */
export const BEARER_SUBPROTOCOL_PREFIX = 'berth.bearer.';
