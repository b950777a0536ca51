import type { Core } from '../../core.js';
import type { HttpModule } from '../module.js';
import { param } from '../params.js';
import { workspaceOf } from './workspace-param.js';

/** The session routes the Web Shell also sends under its workspace. */
const UNDER_WORKSPACE: readonly (readonly ['GET' | 'PATCH', string])[] = [
  ['GET', 'transcript'],
  ['GET', 'turn-index'],
  ['GET', 'export'],
  ['PATCH', 'metadata'],
];

/**
 * `/workspaces/{cwd}/session/{id}/…` is `/session/{id}/…` once the workspace is found: a 307
 * sends the client there with the same method, headers and body, so the request passes every
 * check of its own route (a forwarded copy would come from no real connection).
 */
export const webShellWorkspaceSessionsModule: HttpModule = {
  name: 'webshell-workspace-sessions',
  features: () => [],
  register(app, core: Core) {
    for (const [method, rest] of UNDER_WORKSPACE) {
      app.route({
        method,
        url: `/workspaces/:cwd/session/:id/${rest}`,
        handler: async (request, reply) => {
          workspaceOf(core, request, 'cwd');
          const search = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
          return reply.redirect(`/session/${encodeURIComponent(param(request, 'id'))}/${rest}${search}`, 307);
        },
      });
    }
  },
};
