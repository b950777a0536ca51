import type { Core } from '../../core.js';
import { BerthError } from '../../protocol/errors/index.js';
import { availableCommands as commandsOfBuiltinAgent } from '../../sessions/slash-commands.js';
import { clientIdOf } from '../client-id.js';
import type { HttpModule } from '../module.js';
import { param, query } from '../params.js';
import { allStored } from './session-list.js';
import { packageVersion } from '../../package-files.js';


/**
 * qwen serve's per-session routes the Web Shell calls outside the 25 operations, plus its daemon
 * status page (README, "The qwen Web Shell against Berth").
 */
export const webShellSessionModule: HttpModule = {
  name: 'webshell-session',
  features: () => [],
  register(app, core: Core) {
    // The built-in agent's slash commands (docs/client-api.md); an external agent announces its own on the stream.
    app.get('/session/:id/supported-commands', async (request) => {
      const session = await core.sessions.open(param(request, 'id'));
      const availableCommands = session.harness === 'built-in' ? commandsOfBuiltinAgent() : [];
      return { v: 1, sessionId: session.id, availableCommands, availableSkills: [] };
    });

    // Berth has no goal mode; qwen reports "no goal" as a null snapshot.
    app.get('/session/:id/goal', async (request) => {
      await core.sessions.open(param(request, 'id'));
      return { snapshot: null };
    });

    // The client is leaving: its id is forgotten (204, as qwen answers). Without an id there is nothing to do.
    app.post('/session/:id/detach', async (request, reply) => {
      const clientId = clientIdOf(request);
      const session = await core.sessions.open(param(request, 'id'));
      session.clients.require(clientId);
      if (clientId !== undefined) session.clients.release(clientId);
      return reply.code(204).send();
    });

    app.get('/daemon/status', async (request, reply) => {
      const detail = query(request).detail ?? 'summary';
      if (detail !== 'summary' && detail !== 'full') throw new BerthError('invalid_detail');
      const live = core.sessions.list();
      const stored = await allStored(core);
      reply.header('Cache-Control', 'no-store');
      return {
        v: 1,
        detail,
        status: 'ok',
        daemon: 'berth',
        version: packageVersion(),
        startedAt: new Date(core.startedAt).toISOString(),
        uptimeMs: Math.max(0, core.clock.now() - core.startedAt),
        sessionCount: live.length,
        storedSessionCount: stored.length,
        pendingPermissionCount: live.reduce((n, s) => n + s.interactions.pending().length, 0),
        workspaces: core.workspaces.list().map((ws) => ({
          id: ws.id,
          kind: ws.kind,
          workspaceCwd: ws.kind === 'local' ? ws.root : ws.id,
          primary: ws.primary,
          sessionCount: live.filter((s) => s.workspace.id === ws.id).length,
        })),
      };
    });
  },
};
