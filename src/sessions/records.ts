/**
 * What the sessions module keeps durably, and the repositories it keeps it in.
 * The interfaces are the sessions module's own; `store/` implements them
 * (SQLite today, a shared server database later); every method returns a promise.
 */

/** A session as persisted: everything needed to list it and bring it back after a restart. */
export interface SessionRow {
  readonly id: string;
  readonly workspaceId: string;
  readonly scope: 'single' | 'thread';
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly displayName: string | null;
  readonly titleSource: string | null;
  readonly prs: readonly unknown[];
  readonly modelId: string | null;
  readonly approvalMode: string;
  readonly sourceType: string | null;
  readonly sourceId: string | null;
  readonly worktree: Record<string, unknown> | null;
  readonly branch: Record<string, unknown> | null;
  readonly currentCwd: string | null;
  readonly closedAt: number | null;
  readonly closeReason: string | null;
}

export type SessionPatch = Partial<
  Pick<SessionRow, 'displayName' | 'titleSource' | 'prs' | 'modelId' | 'approvalMode' | 'closedAt' | 'closeReason'>
>;

export interface SessionRepository {
  insert(row: SessionRow): Promise<void>;
  get(id: string): Promise<SessionRow | undefined>;
  update(id: string, patch: SessionPatch, now: number): Promise<void>;
  /**
   * Up to `limit` sessions stored after position `after` (0 = from the first), in the order
   * they were stored, each with its position: what a `GET /sessions` page continues from.
   */
  listAfter(after: number, limit: number): Promise<{ readonly row: SessionRow; readonly position: number }[]>;
  /** Marks every session not yet closed as closed at `now` for `reason`; returns how many. */
  closeAllOpen(reason: string, now: number): Promise<number>;
}

/** How an admitted prompt ended (the durable prompt ledger, docs/client-api.md §5.3 `promptTerminals`). */
export type PromptTerminal = 'completed' | 'cancelled' | 'error' | 'interrupted' | 'removed';

export interface PromptRow {
  readonly id: string;
  readonly sessionId: string;
  readonly content: readonly unknown[];
  readonly originatorClientId: string | null;
  readonly queuedAt: number;
  readonly startedAt: number | null;
  readonly settledAt: number | null;
  readonly terminal: PromptTerminal | null;
  readonly stopReason: string | null;
  readonly errorCode: string | null;
}

export interface PromptRepository {
  /** `startedAt` when the prompt starts at once (an idle session): its start mark goes with its row. */
  admit(row: Pick<PromptRow, 'id' | 'sessionId' | 'content' | 'originatorClientId' | 'queuedAt'> & { readonly startedAt?: number }): Promise<void>;
  started(id: string, at: number): Promise<void>;
  settle(id: string, at: number, terminal: PromptTerminal, stopReason: string | null, errorCode: string | null): Promise<void>;
  /** Settles a prompt whose row was stored but that never joined its queue, taking back the start mark it may have been admitted with. */
  refused(id: string, at: number, terminal: PromptTerminal): Promise<void>;
  unsettled(sessionId?: string): Promise<PromptRow[]>;
  settled(sessionId: string): Promise<PromptRow[]>;
}
