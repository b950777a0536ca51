/**
 * The environment an external agent gets so its module helper (an MCP stdio
 * server, `berth msg`, a script) can speak the module protocol: where the
 * workspace socket is, its token, and the session the token speaks for (the
 * `session` of a question; needed only when one token serves several tabs).
 */
export const MODULE_SOCKET_ENV = 'BERTH_MODULE_SOCKET';
export const MODULE_TOKEN_ENV = 'BERTH_MODULE_TOKEN';
export const MODULE_SESSION_ENV = 'BERTH_MODULE_SESSION';

export interface ModuleAccess {
  readonly socket: string;
  readonly token: string;
  readonly sessionId: string;
}

export function moduleEnvironment(access: ModuleAccess): Record<string, string> {
  return {
    [MODULE_SOCKET_ENV]: access.socket,
    [MODULE_TOKEN_ENV]: access.token,
    [MODULE_SESSION_ENV]: access.sessionId,
  };
}
