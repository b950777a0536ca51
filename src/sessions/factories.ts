import type { PermissionGrantRepository } from './grants.js';
import type { AgentDriver } from '../agents/driver.js';
import type { Workspace } from '../workspace/types.js';
import type { SessionBus, SessionTools } from './ports.js';
import type { PromptRepository, SessionRepository } from './records.js';
import type { Session } from './session.js';
import type { TranscriptRepository } from '../transcript/records.js';
import type { CheckpointRepository } from '../tools/checkpoints/records.js';

/** `POST /session` as the core sees it (already shape-checked by the face). */
export interface CreateSessionRequest {
  readonly cwd?: string | null;
  readonly sessionId?: string | null;
  readonly modelServiceId?: string;
  readonly sessionScope?: 'single' | 'thread';
  readonly approvalMode?: string;
  readonly sourceType?: string;
  readonly sourceId?: string;
  readonly worktree?: { slug?: string };
  readonly branch?: { name: string };
}

export interface DriverRequest {
  readonly sessionId: string;
  readonly workspace: Workspace;
  /** The session's working directory (null on a remote workspace); an external agent starts there. */
  readonly cwd: string | null;
  readonly modelServiceId?: string;
  readonly modelId?: string | null;
}

export interface DriverResult {
  readonly driver: AgentDriver;
  /** Present when a model service was requested: whether it could be applied (docs/client-api.md §5.1, soft failure). */
  readonly modelApplied?: boolean;
  readonly modelError?: string;
}

/** How the manager builds a session's parts; the composition root supplies them. */
export interface SessionFactories {
  /** `lastEventId`: ids already used by a restored session's replay snapshot, so live ids continue after them (docs/client-api.md §7.4). */
  createBus(options: { sessionId: string; lastEventId?: number }): SessionBus;
  createDriver(request: DriverRequest): Promise<DriverResult>;
  /** Told when a live session has closed (e.g. to stop the commands it started). */
  sessionClosed?(sessionId: string): void;
  /** Told when a session has become live, `fresh` (never stored before) or restored, e.g. to give it a module tab. */
  sessionOpened?(session: Session, fresh: boolean): Promise<void> | void;
  /** Told when a live session has run all its queued prompts, e.g. to offer it a waiting module message. */
  sessionIdle?(session: Session): void;
  /** The tool layer for this session; `workspace` is where tools run (a worktree has its own root). */
  toolsFor(workspace: Workspace, sessionId: string): SessionTools;
}

export interface SessionStores {
  readonly sessions: SessionRepository;
  readonly transcript: TranscriptRepository;
  readonly prompts: PromptRepository;
  /** Remembered "always" choices; in memory when absent. */
  readonly grants?: PermissionGrantRepository;
  /** File checkpoints for rewinds (docs/client-api.md §5.13); in memory when absent. */
  readonly checkpoints?: CheckpointRepository;
}

export interface CreatedSession {
  readonly session: Session;
  readonly attached: boolean;
  readonly clientId: string;
  readonly modelApplied?: boolean;
}
