import type { Core } from '../../core.js';
import type { Workspace } from '../../workspace/types.js';
import type { HttpModule } from '../module.js';

/**
 * `GET /workspace/tools` (OpenAPI `getWorkspaceTools`, docs/client-api.md §11.7): the
 * primary workspace's tool catalog. Berth's tools live in the daemon itself,
 * so the backend is always initialized and live. The route carries no
 * capability tag (`x-qwen-capability: null`).
 */
export const workspaceToolsModule: HttpModule = {
  name: 'workspace-tools',
  features: () => [],
  register(app, core: Core) {
    app.get('/workspace/tools', async () => toolCatalog(core, core.workspaces.primary()));
  },
};

/** A workspace's tool catalog in the `getWorkspaceTools` shape (qwen's cwd: the root, or a remote workspace's id). */
export function toolCatalog(core: Core, workspace: Workspace) {
  return {
    v: 1,
    workspaceCwd: workspace.kind === 'local' ? workspace.root : workspace.id,
    initialized: true,
    acpChannelLive: true,
    tools: core.tools.summaries(workspace),
  };
}
