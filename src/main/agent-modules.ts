import type { AgentModules } from '../agents/acp/modules.js';
import { MODULE_SOCKET_ENV, MODULE_TOKEN_ENV, type MessagingService } from '../messaging/index.js';

/**
 * The module protocol for external agent processes (docs/agents.md): the
 * workspace's socket and one token per process, which speaks for each
 * session that joins the process and for none once it has exited.
 */
export function agentModules(messaging: MessagingService): AgentModules {
  return (workspaceId) => {
    const socket = messaging.socketPath(workspaceId);
    if (socket === null) return null;
    const tokens = messaging.agentTokens;
    const token = tokens.mint();
    return {
      env: { [MODULE_SOCKET_ENV]: socket, [MODULE_TOKEN_ENV]: token },
      reach: [socket],
      grant: (sessionId) => tokens.grant(token, sessionId),
      revoke: (sessionId) => tokens.revoke(token, sessionId),
    };
  };
}
