import type { AgentModules } from '../agents/acp/modules.js';
import type { Logger } from '../log.js';
import { MODULE_SOCKET_ENV, MODULE_TOKEN_ENV, type MessagingService } from '../messaging/index.js';

/**
 * The module protocol for external agent processes (docs/agents.md): the
 * workspace's socket and one token per process, which speaks for each
 * session that joins the process and for none once it has exited.
 */
export function agentModules(messaging: MessagingService, log: Logger): AgentModules {
  return (workspaceId) => {
    const socket = messaging.socketPath(workspaceId);
    if (socket === null) return null;
    const token = messaging.mintAgentToken();
    return {
      env: { [MODULE_SOCKET_ENV]: socket, [MODULE_TOKEN_ENV]: token },
      reach: [socket],
      grant: (sessionId) => messaging.grantTab(token, sessionId),
      revoke: (sessionId) => {
        try {
          messaging.revokeToken(token, sessionId);
        } catch (err) {
          // At shutdown the store may close before the last agent exits; the token then dies with nothing to open.
          log.debug({ err }, 'agent module token not revoked');
        }
      },
    };
  };
}
