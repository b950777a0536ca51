import type { FastifyReply } from 'fastify';
import type { Core } from '../../core.js';
import { modelInfos } from '../../agents/models/registry.js';
import { currentBranch } from '../../workspace/git-head.js';
import type { Workspace } from '../../workspace/types.js';
import type { HttpModule } from '../module.js';
import { registerWorkspaceReads } from '../routes/workspace-reads.js';
import { toolCatalog } from '../routes/workspace-tools.js';
import { cwdOf, localWorkspaceOf, workspaceOf } from './workspace-param.js';

/**
 * qwen serve's workspace routes the Web Shell calls outside the 25 operations, answered in qwen's
 * shapes where Berth has the facts and as qwen's own "nothing here" shapes where it has not
 * (README, "The qwen Web Shell against Berth").
 */
export const webShellWorkspaceModule: HttpModule = {
  name: 'webshell-workspace',
  features: () => [],
  register(app, core: Core) {
    // `@file` completion and the file panel: the read routes (file, file/bytes, stat, list, glob) on the named workspace's root.
    registerWorkspaceReads(app, core, '/workspaces/:cwd', (request) => localWorkspaceOf(core, request, 'cwd').root);

    // The branch chip: the branch from .git/HEAD; Berth runs no git, so the changes panel stays empty
    // (qwen's own answer when it has no status: `{v: 2, workspaceCwd, branch: null}`).
    app.get('/workspaces/:cwd/git', async (request, reply) => gitChip(workspaceOf(core, request, 'cwd'), reply));

    // Berth pairs no phones: qwen's answer when pairing is off (the Web Shell then shows its local-control panel).
    app.post('/web-shell/pairing', async (_request, reply) => (reply.header('Cache-Control', 'no-store'), { active: false }));

    // No custom brand: the client keeps its own (qwen answers `{}` when no brand is configured).
    app.get('/brand', async () => ({}));

    // Berth's model services are not qwen auth providers; qwen's idle shape says "none to show".
    const noProviders = (ws: Workspace) => ({ v: 1, workspaceCwd: cwdOf(ws), initialized: false, providers: [] });
    app.get('/workspace/providers', async () => noProviders(core.workspaces.primary()));
    app.get('/workspaces/:cwd/providers', async (request) => noProviders(workspaceOf(core, request, 'cwd')));

    // Berth's settings are its flags and config file, not qwen's settings.json: nothing to edit here.
    app.get('/workspace/settings', async () => ({ settings: [], warnings: [] }));
    app.get('/workspaces/:cwd/settings', async (request) => (workspaceOf(core, request, 'cwd'), { settings: [], warnings: [] }));

    // The tool catalog of the named workspace, as `GET /workspace/tools` gives the primary one's.
    app.get('/workspaces/:cwd/tools', async (request) => toolCatalog(core, workspaceOf(core, request, 'cwd')));

    // The models a session can switch to: each service's known listing, ids as `POST /session/{id}/model` takes them.
    app.get('/workspace/models', async () => {
      const models = [];
      for (const id of core.models.ids()) {
        const service = core.models.get(id)!;
        for (const info of modelInfos(id, service.known())) models.push({ id: info.modelId, modelId: info.modelId, name: info.name });
      }
      return { models };
    });
  },
};

/** qwen's git status with only the branch (read from .git/HEAD): the Web Shell's branch chip. */
export function gitChip(ws: Workspace, reply: FastifyReply): { v: 2; workspaceCwd: string; branch: string | null } {
  reply.header('Cache-Control', 'no-store');
  return { v: 2, workspaceCwd: cwdOf(ws), branch: ws.kind === 'local' ? currentBranch(ws.root) : null };
}
