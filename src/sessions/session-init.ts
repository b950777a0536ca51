import type { Workspace } from '../workspace/types.js';
import type { ApprovalMode } from './approval.js';
import type { SessionPr } from './metadata.js';

/** What a session is made of (fresh from `POST /session`, or read back from the store by a restore). */
export interface SessionInit {
  readonly id: string;
  readonly workspace: Workspace;
  /** The directory tools run in: the workspace root, or a git worktree of it. */
  readonly cwd: string | null;
  readonly scope: 'single' | 'thread';
  readonly createdAt: number;
  readonly approvalMode: ApprovalMode;
  readonly displayName: string | null;
  readonly prs: readonly SessionPr[];
  readonly sourceType: string | null;
  readonly sourceId: string | null;
  readonly worktree: { slug: string; path: string; branch: string } | null;
  readonly branch: { name: string; baseBranch: string } | null;
}

export interface PromptAccepted {
  readonly promptId: string;
  readonly lastEventId: number;
  readonly eventEpoch: string;
}

export interface TurnErrorInfo {
  readonly message: string;
  readonly code?: string;
  readonly errorKind?: string;
}
