import type { FastifyRequest } from 'fastify';
import type { Core } from '../../core.js';
import type { Workspace } from '../../workspace/types.js';
import type { HttpModule } from '../module.js';
import { gitChip } from './workspace-info.js';
import { cwdOf, workspaceOf } from './workspace-param.js';

/**
 * qwen's idle status shapes (`initialized: false`, nothing listed) for the workspace panels the
 * Web Shell opens: Berth has no memory files, skills, hooks, extensions or custom agents, so an
 * empty panel is the honest answer, where a 404 would show as an error.
 */
const IDLE_PANELS: readonly (readonly [string, (cwd: string) => object])[] = [
  ['/memory', (workspaceCwd) => ({ v: 1, workspaceCwd, initialized: false, files: [], totalBytes: 0, fileCount: 0, ruleCount: 0 })],
  ['/skills', (workspaceCwd) => ({ v: 1, workspaceCwd, initialized: false, skills: [] })],
  ['/hooks', (workspaceCwd) => ({ v: 1, workspaceCwd, initialized: false, disabled: false, hooks: [], events: [] })],
  ['/extensions', (workspaceCwd) => ({ v: 1, workspaceCwd, initialized: false, extensions: [] })],
  ['/agents', (workspaceCwd) => ({ v: 1, workspaceCwd, agents: [] })],
];

export const webShellWorkspaceStatusModule: HttpModule = {
  name: 'webshell-workspace-status',
  features: () => [],
  register(app, core: Core) {
    // `/workspace/…` is the daemon's primary workspace, `/workspaces/{cwd}/…` the one named.
    const primary = (): Workspace => core.workspaces.primary();
    const named = (request: FastifyRequest): Workspace => workspaceOf(core, request, 'cwd');

    for (const [suffix, idle] of IDLE_PANELS) {
      app.get(`/workspace${suffix}`, async () => idle(cwdOf(primary())));
      app.get(`/workspaces/:cwd${suffix}`, async (request) => idle(cwdOf(named(request))));
    }

    // The daemon-wide extension catalogue: empty.
    app.get('/extensions', async () => ({ v: 1, generation: 0, extensions: [] }));

    // Berth has no session groups: none to show, and no colours to pick from.
    const noGroups = { groups: [], colorOptions: [] };
    app.get('/workspace/:cwd/session-groups', async (request) => (named(request), noGroups));
    app.get('/workspaces/:cwd/session-groups', async (request) => (named(request), noGroups));

    // The branch chip of the primary workspace, as `GET /workspaces/{cwd}/git` gives it for a named one.
    app.get('/workspace/git', async (_request, reply) => gitChip(primary(), reply));
  },
};
