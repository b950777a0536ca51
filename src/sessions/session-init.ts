import type { AgentDriver } from '../agents/driver.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config/config.js';
import type { Logger } from '../log.js';
import type { PromptRepository, SessionRepository } from './records.js';
import type { Workspace } from '../workspace/types.js';
import type { ApprovalMode } from './approval.js';
import type { SessionPr } from './metadata.js';
import type { SessionBus, SessionTools, TranscriptSink } from './ports.js';
import type { Session } from './session.js';

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

export interface SessionServices {
  readonly clock: Clock;
  readonly log: Logger;
  readonly config: Config;
  readonly bus: SessionBus;
  readonly driver: AgentDriver;
  readonly tools: SessionTools;
  readonly transcript: TranscriptSink;
  readonly prompts: PromptRepository;
  readonly sessions: SessionRepository;
  /** Called once the session has closed (the manager forgets it). */
  readonly onClosed: (session: Session) => void;
  /** Called when the FIFO has drained and the session waits for work (module messages are offered then). */
  readonly onIdle?: (session: Session) => void;
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
