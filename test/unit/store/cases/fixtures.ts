import type { StoredSession } from '../../../../src/store/repos/sessions.js';
import type { Handle } from '../engines.js';

/** The open store of the current test. */
export type Current = () => Handle;

/** A time past 2^32 ms and one at the edge of what a JS number holds exactly: both must come back as numbers. */
export const NOW = 1_764_640_000_123;
export const HUGE = Number.MAX_SAFE_INTEGER;

export function session(id: string, over: Partial<StoredSession> = {}): StoredSession {
  return {
    id,
    workspaceId: 'w1',
    scope: 'single',
    createdAt: NOW,
    updatedAt: NOW,
    displayName: null,
    titleSource: null,
    prs: [],
    modelId: null,
    approvalMode: 'default',
    sourceType: null,
    sourceId: null,
    worktree: null,
    branch: null,
    currentCwd: null,
    closedAt: null,
    closeReason: null,
    ...over,
  };
}

/** Inserts sessions so rows that reference them (transcript, prompts, tabs, inbox) may be written. */
export async function withSessions(h: Handle, ...ids: string[]): Promise<void> {
  for (const id of ids) await h.repos.sessions.insert(session(id));
}
