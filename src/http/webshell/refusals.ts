import type { Core } from '../../core.js';
import { BerthError } from '../../protocol/errors/index.js';
import type { HttpModule } from '../module.js';
import { param } from '../params.js';
import { RefusalTable } from './refusal-table.js';
import { workspaceNamed } from './workspace-param.js';
import { LEVEL_REFUSED, NO_GENERATION, NO_GOALS, NO_GROUPS, NO_LANGUAGE, type Refusal } from './workspace-refusals.js';

const NO_COPIES = 'Berth does not copy sessions: open a new one with POST /session, or go back in this one with POST /session/{id}/rewind';
const NO_ATTACHMENTS = 'Berth keeps no uploaded attachments: send images inline in the prompt content';
const NO_ARTIFACTS = 'Berth keeps no artifacts: what the agent writes is in the workspace (GET /file)';
const NO_SOURCES = 'Berth has no session sources: send what the agent should read in the prompt, or let it read the workspace';
const NO_TASKS = 'Berth runs no background agents or workflows: the agent reads and stops its commands with workspace_poll and workspace_stop';
const NO_ARCHIVE = 'Berth archives and deletes no sessions: DELETE /session/{id} closes a live one, and its transcript stays';

/**
 * qwen serve's routes the Web Shell calls that Berth does not offer, each with what Berth does
 * instead. They answer `501 not_supported` in Berth's Error body (the Web Shell shows its
 * `error`), never a 404 that reads like a wrong URL. A session route still answers 404 for an
 * unknown session (or workspace) first, like every other such route. The workspace- and
 * daemon-level ones are in workspace-refusals.ts.
 */
const SESSION_REFUSED: readonly Refusal[] = [
  ['POST', '/session/:id/btw', 'Berth has no side questions: send the question as a prompt; it runs after the current one'],
  ['POST', '/session/:id/recap', 'Berth writes no recaps: read the transcript (GET /session/{id}/transcript) or export it'],
  ['POST', '/session/:id/fork', NO_COPIES],
  ['POST', '/session/:id/branch', NO_COPIES],
  ['POST', '/session/:id/side-task', NO_COPIES],
  ['POST', '/session/:id/language', NO_LANGUAGE],
  ['POST', '/session/:id/worktree-reset', 'Berth runs no git for a client and keeps no worktrees: a session works on its workspace itself'],
  ['POST', '/session/:id/cd', 'A Berth session stays in the directory it was opened in: open a session there (POST /session with cwd)'],
  ['POST', '/session/:id/generate', NO_GENERATION],
  ['POST', '/session/:id/continue', 'Berth has no continue: send a prompt'],
  ['POST', '/session/:id/config-option', 'Berth has no config options: use POST /session/{id}/model and /approval-mode'],
  ['POST', '/session/:id/goal', NO_GOALS],
  ['POST', '/session/:id/goal/clear', NO_GOALS],
  ['PATCH', '/session/:id/organization', NO_GROUPS],
  ['GET', '/session/:id/artifacts', NO_ARTIFACTS],
  ['POST', '/session/:id/artifacts', NO_ARTIFACTS],
  ['GET', '/session/:id/artifacts/:artifactId/content', NO_ARTIFACTS],
  ['DELETE', '/session/:id/artifacts/:artifactId', NO_ARTIFACTS],
  ['GET', '/session/:id/sources', NO_SOURCES],
  ['POST', '/session/:id/sources', NO_SOURCES],
  ['DELETE', '/session/:id/sources/:sourceId', NO_SOURCES],
  ['GET', '/session/:id/resources', 'Berth has no skills or MCP resources per session: its tools are listed at GET /workspace/tools'],
  ['GET', '/session/:id/saved-workflows/:name', NO_TASKS],
  ['GET', '/session/:id/subagents/:subagentRef', NO_TASKS],
  ['POST', '/session/:id/subagents/:subagentRef/cancel', NO_TASKS],
  ['POST', '/session/:id/tasks/:taskId/cancel', NO_TASKS],
  ['POST', '/session/:id/tasks/:taskId/workflow-action', NO_TASKS],
  ['POST', '/session/:id/attachments', NO_ATTACHMENTS],
  ['GET', '/session/:id/attachments/:attachmentId', NO_ATTACHMENTS],
  ['DELETE', '/session/:id/attachments/:attachmentId', NO_ATTACHMENTS],
  ['POST', '/sessions/archive', NO_ARCHIVE],
  ['POST', '/sessions/unarchive', NO_ARCHIVE],
  ['POST', '/sessions/delete', NO_ARCHIVE],
  ['POST', '/sessions/catalog', 'Berth has one session list: GET /workspaces/{cwd}/sessions (or GET /sessions)'],
  // The Web Shell sends the three under its workspace.
  ['POST', '/workspaces/:cwd/sessions/archive', NO_ARCHIVE],
  ['POST', '/workspaces/:cwd/sessions/unarchive', NO_ARCHIVE],
  ['POST', '/workspaces/:cwd/sessions/delete', NO_ARCHIVE],
];

export const webShellRefusalsModule: HttpModule = {
  name: 'webshell-refusals',
  features: () => [],
  register(app, core: Core) {
    // Uploads come with the file's own Content-Type: in this scope any body is read (within the body limit) and dropped.
    app.register(async (scope) => {
      scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, _body, done) => done(null, undefined));
      // The session table stays routes of their own: the cluster forwards `/session/:id…` routes to the session's owner.
      for (const [method, url, message] of SESSION_REFUSED) {
        scope.route({
          method,
          url,
          handler: async (request) => {
            if (url.startsWith('/session/:id')) await core.sessions.open(param(request, 'id'));
            if (url.startsWith('/workspaces/:cwd')) workspaceNamed(core, param(request, 'cwd'));
            throw new BerthError('not_supported', message, { operation: `${method} ${url}` });
          },
        });
      }
      // The workspace- and daemon-level table has hundreds of entries, and every fastify route costs start-up
      // time: they are served by a catch-all per path prefix, which Berth's own routes outrank.
      const table = new RefusalTable(LEVEL_REFUSED);
      for (const { method, url } of table.catchAlls()) {
        scope.route({
          method,
          url,
          handler: async (request) => {
            const path = request.url.split('?')[0]!;
            const hit = table.match(request.method, path);
            if (!hit) throw new BerthError('route_not_found', `Cannot ${request.method} ${path}`);
            if (hit.params.cwd !== undefined) workspaceNamed(core, hit.params.cwd);
            throw new BerthError('not_supported', hit.message, { operation: `${hit.method} ${hit.url}` });
          },
        });
      }
    });
  },
};
