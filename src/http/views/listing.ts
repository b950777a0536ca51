import type { SessionRow } from '../../sessions/records.js';
import type { Workspace } from '../../workspace/types.js';

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * One line of `GET /sessions` (README, Berth's addition outside the 25
 * operations): every stored session, `live` or `persisted` — after a crash and
 * restart every one of them is listed and loadable.
 */
export interface SessionListEntry {
  readonly sessionId: string;
  readonly workspaceId: string;
  readonly workspaceCwd?: string;
  readonly state: 'live' | 'persisted';
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly displayName?: string;
  readonly modelId?: string;
  readonly approvalMode: string;
  readonly closedAt?: string;
  readonly closeReason?: string | null;
}

export function sessionListEntry(row: SessionRow, live: boolean, workspace: Workspace | undefined): SessionListEntry {
  return {
    sessionId: row.id,
    workspaceId: row.workspaceId,
    ...(workspace?.kind === 'local' ? { workspaceCwd: workspace.root } : {}),
    state: live ? 'live' : 'persisted',
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    ...(row.displayName !== null ? { displayName: row.displayName } : {}),
    ...(row.modelId !== null ? { modelId: row.modelId } : {}),
    approvalMode: row.approvalMode,
    ...(row.closedAt !== null ? { closedAt: iso(row.closedAt), closeReason: row.closeReason } : {}),
  };
}
