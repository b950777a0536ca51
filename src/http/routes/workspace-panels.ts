import type { FastifyRequest } from 'fastify';
import type { Core } from '../../core.js';
import { BerthError } from '../../protocol/errors/index.js';
import { bearerOf } from '../../tokens/tokens.js';
import type { HttpModule } from '../module.js';
import { query } from '../params.js';
import { applicationView, tabView } from '../views/workspace-panels.js';
import { workspaceOf } from '../webshell/workspace-param.js';

/** How many of each tab's latest sent and received messages a panel shows by default, and at most. */
const DEFAULT_MESSAGES = 20;
const MOST_MESSAGES = 200;

function messagesWanted(request: FastifyRequest): number {
  const given = query(request).messages;
  if (given === undefined) return DEFAULT_MESSAGES;
  if (!/^[0-9]{1,4}$/.test(given) || Number(given) > MOST_MESSAGES) {
    throw new BerthError('invalid_request', `messages must be an integer from 0 to ${MOST_MESSAGES}`, { messages: given });
  }
  return Number(given);
}

/**
 * Read-only workspace panels for the web app (issue 13; outside the 25
 * operations of contract/openapi.json, documented in docs/client-api.md
 * "Workspace panels"). `{cwd}` is a workspace id or a local root, as in the
 * Web Shell's `/workspace/{cwd}/sessions`. The tabs panel shows inbox texts, so
 * a module token is refused by name, as on the module-access routes.
 */
export const workspacePanelsModule: HttpModule = {
  name: 'workspace-panels',
  features: () => ['workspace_panels'],
  register(app, core: Core) {
    app.get('/workspace/:cwd/tabs', async (request) => {
      const bearer = bearerOf(request.headers.authorization);
      if (bearer !== null && (await core.messaging.isModuleToken(bearer))) {
        throw new BerthError('token_scope_denied', 'A module token cannot read the tabs of a workspace; ask the owner of the client API');
      }
      const ws = workspaceOf(core, request, 'cwd');
      const most = messagesWanted(request);
      const open = await core.messaging.tabsOf(ws.id);
      const tabs = await Promise.all(
        open.map(async (t) => tabView(t, most === 0 ? [] : await core.transcripts.latestOfKind(t.sessionId, 'module_message', most))),
      );
      return { v: 1, workspaceId: ws.id, tabs };
    });

    app.get('/workspace/:cwd/applications', async (request) => {
      const ws = workspaceOf(core, request, 'cwd');
      return { v: 1, workspaceId: ws.id, applications: core.tools.applications.applications(ws.id).map(applicationView) };
    });
  },
};
