import type { LocalWorkspace, Workspace } from '../workspace/types.js';

/**
 * Where a session's tools run and where its tool locations point: the
 * workspace itself, or the git worktree the session was created on (the create
 * body's `worktree`), which is the same local workspace under another root.
 */
export function runWorkspaceOf(init: { readonly workspace: Workspace; readonly cwd: string | null }): Workspace {
  const { workspace, cwd } = init;
  if (workspace.kind !== 'local' || !cwd || cwd === workspace.root) return workspace;
  return { ...workspace, root: cwd } satisfies LocalWorkspace;
}
