import type { FastifyRequest } from 'fastify';
import type { Core } from '../../core.js';
import { BerthError } from '../../protocol/errors/index.js';
import { moduleEnvironment } from '../../messaging/index.js';
import { bearerOf } from '../../tokens/tokens.js';
import type { HttpModule } from '../module.js';
import { objectBody, param } from '../params.js';
import { readSessionIds, readTabSettings } from './module-settings.js';

/**
 * A session's module access for its owner (Deliver 2; outside the 25
 * operations of contract/openapi.json): its tab number, the workspace socket, and its
 * module token. The token is stored only as a hash, so it is shown when it is
 * issued — on the first `GET`, or by `POST …/module/token`, which replaces it —
 * and never again. `POST …/module/join` gives one more token for the same tab,
 * for a second terminal (`berth msg --session ID`), and replaces nothing. A module token is refused here by name, even on a daemon
 * without an owner token, so one agent cannot read another session's token.
 */
export const moduleAccessModule: HttpModule = {
  name: 'module-access',
  features: () => ['module_protocol'],
  register(app, core: Core) {
    const refuseModuleTokens = async (request: FastifyRequest) => {
      const bearer = bearerOf(request.headers.authorization);
      if (bearer !== null && (await core.messaging.isModuleToken(bearer))) {
        throw new BerthError('token_scope_denied', 'A module token cannot read module access; ask the owner of the client API');
      }
    };
    const view = async (sessionId: string, token: string | null) => {
      const session = core.sessions.get(sessionId);
      const tab = await core.messaging.describe(session.id);
      if (!tab) throw new BerthError('session_not_found', `No session with id "${sessionId}"`, { sessionId });
      return {
        ...tab,
        token,
        ...(token !== null && tab.socket !== null ? { env: moduleEnvironment({ socket: tab.socket, token, sessionId: session.id }) } : {}),
        ...(token === null
          ? {
              tokenNote:
                `The token was shown when it was issued. POST /session/${session.id}/module/join gives another terminal a token of its own ` +
                `(berth msg --session ${session.id} does this for you); POST /session/${session.id}/module/token replaces every token of this tab.`,
            }
          : {}),
      };
    };

    app.get('/session/:id/module', async (request) => {
      await refuseModuleTokens(request);
      const session = await core.sessions.open(param(request, 'id'));
      const token = (await core.messaging.hasToken(session.id)) ? null : await core.messaging.issueToken(session.id);
      return view(session.id, token);
    });

    app.post('/session/:id/module/token', async (request) => {
      await refuseModuleTokens(request);
      const session = await core.sessions.open(param(request, 'id'));
      return view(session.id, await core.messaging.issueToken(session.id));
    });

    app.post('/session/:id/module/join', async (request) => {
      await refuseModuleTokens(request);
      const session = core.sessions.get(param(request, 'id'));
      return view(session.id, await core.messaging.joinToken(session.id));
    });

    // The owner says how a tab reads its messages and whether it reaches the network (docs in README.md).
    app.patch('/session/:id/module', async (request) => {
      await refuseModuleTokens(request);
      const session = await core.sessions.open(param(request, 'id'));
      core.messaging.declare(session.id, readTabSettings(objectBody(request)));
      return view(session.id, null);
    });

    // One token for several tabs of one workspace; each question names its tab with `session`.
    app.post('/module/token', async (request) => {
      await refuseModuleTokens(request);
      const sessionIds: string[] = [];
      for (const id of readSessionIds(objectBody(request))) sessionIds.push((await core.sessions.open(id)).id);
      const token = await core.messaging.shareToken(sessionIds);
      const tabs = (await Promise.all(sessionIds.map((id) => core.messaging.describe(id)))).map((t) => t!);
      return {
        token,
        workspaceId: tabs[0]!.workspaceId,
        socket: tabs[0]!.socket,
        sessions: tabs.map((t) => ({ sessionId: t.sessionId, tab: t.tab, title: t.title })),
      };
    });
  },
};
