import { existsSync } from 'node:fs';
import type { Clock } from '../clock.js';
import { DEFAULT_COMPACTED_REPLAY_RECORDS, MAX_COMPACTED_REPLAY_BYTES } from './limits.js';
import { BerthError } from '../protocol/errors/index.js';
import type { TranscriptRecord } from '../transcript/records.js';
import type { PromptRow, SessionRow } from './records.js';
import { TranscriptOutline, type OutlineEntry } from '../transcript/outline.js';
import { replayWindow, type ReplayWindow, type WindowOptions } from '../transcript/window.js';
import type { WorkspaceRegistry } from '../workspace/registry.js';
import type { Workspace } from '../workspace/types.js';
import { approvalFor, parseApprovalMode } from './approval.js';
import { historyFromRecords } from './history.js';
import { usageFromRecords } from './usage.js';
import { isSessionId } from './ids.js';
import type { SessionStores } from './factories.js';
import type { SpawnOptions, Spawned } from './spawn.js';
import { REOPENABLE_CLOSE_REASONS } from './recovery.js';
import type { Session, SessionInit } from './session.js';
import type { SessionPr } from './metadata.js';
import { availableCommandsEvent } from './slash-commands.js';

export type RestoreAction = 'load' | 'resume';

/** `POST /session/{id}/load|resume` as the core sees it (already shape-checked by the face). */
export interface RestoreRequest {
  readonly action: RestoreAction;
  readonly sessionId: string;
  readonly cwd?: string;
  readonly approvalMode?: string;
  /** Load only: records in the compacted window (1-500). */
  readonly historyPageSize?: number;
  readonly requestedClientId?: string;
}

/** What a load shows of the history (docs/client-api.md §5.3). */
export interface RestoredReplay {
  readonly compactedReplay: ReplayWindow;
  readonly liveJournal: ReplayWindow;
}

export interface RestoreOutcome {
  readonly session: Session;
  readonly attached: boolean;
  readonly clientId: string;
  /** The SSE cursor the client starts from: the snapshot's last id on a cold load, the bus high-water mark otherwise. */
  readonly lastEventId: number;
  readonly replay?: RestoredReplay;
  readonly artifactWarnings: readonly string[];
  /** The durable outcomes of the session's settled prompts, oldest first (docs/client-api.md §5.3 `promptTerminals`). */
  readonly settled: readonly PromptRow[];
}

/** The live sessions as a restore sees them: look one up, or make one live. */
export interface LiveSessions {
  find(id: string): Session | undefined;
  spawn(init: SessionInit, options: SpawnOptions): Promise<Spawned>;
}

interface Underway {
  readonly action: RestoreAction | 'reopen';
  readonly done: Promise<{ session: Session; lastEventId: number; replay?: RestoredReplay; warnings: string[] }>;
}

/**
 * Brings persisted sessions back to life (docs/client-api.md §5.3, §5.4, §5.10): load
 * (with a replay snapshot), resume (model context only) and the lazy reopen of
 * a session the daemon lost. Each rebuilds the driver's model context from the
 * whole transcript (once the answer is on its way: Session.reopened), starts a
 * new bus epoch and mints a client id. A session
 * that is already live is attached instead. Concurrent restores of one id
 * coalesce when they ask the same thing; a load racing a resume is refused
 * with 409 `restore_in_progress` (docs/client-api.md §5.4).
 */
export class SessionRestorer {
  private readonly underway = new Map<string, Underway>();
  /** Each live session's transcript outline: a load reads its window, not the whole transcript. */
  private readonly outlines = new WeakMap<Session, TranscriptOutline>();

  constructor(
    private readonly deps: {
      readonly live: LiveSessions;
      readonly stores: SessionStores;
      readonly workspaces: WorkspaceRegistry;
      readonly clock: Clock;
    },
  ) {}

  async restore(req: RestoreRequest): Promise<RestoreOutcome> {
    const outcome = await this.restoreLive(req);
    return { ...outcome, settled: await this.deps.stores.prompts.settled(outcome.session.id) };
  }

  private async restoreLive(req: RestoreRequest): Promise<Omit<RestoreOutcome, 'settled'>> {
    const id = this.normalize(req.sessionId);
    if (req.approvalMode !== undefined) parseApprovalMode(req.approvalMode);
    if (req.cwd !== undefined && req.cwd !== '') await this.checkWorkspace(id, req.cwd);
    const live = this.deps.live.find(id);
    if (live && !live.closed) return this.attach(live, req);
    const pending = this.underway.get(id);
    if (pending) {
      if (pending.action !== 'reopen' && pending.action !== req.action) {
        throw new BerthError('restore_in_progress', `A ${pending.action} of session ${id} is in progress`, {
          sessionId: id,
          reason: 'restore_in_progress',
          activeAction: pending.action,
          requestedAction: req.action,
        });
      }
      // docs/client-api.md §5.1/§5.4: same-action races coalesce; a failed restore fails every coalesced caller.
      const { session } = await pending.done;
      return this.attach(session, req);
    }
    const { session, lastEventId, replay, warnings } = await this.track(id, req.action, () => this.cold(id, req));
    const clientId = session.clients.attach(req.requestedClientId, this.deps.clock.now());
    return { session, attached: false, clientId, lastEventId, ...(replay ? { replay } : {}), artifactWarnings: warnings };
  }

  /**
   * A session route touched a session the daemon lost (crash or shutdown):
   * bring it back as a resume would, so the route finds it live and a client
   * reconnecting with an old cursor is told to resync (docs/client-api.md §7.4 epoch reset).
   * Sessions closed on purpose (DELETE, idle reaper) stay closed.
   */
  async reopen(sessionId: string): Promise<void> {
    if (!isSessionId(sessionId)) return;
    const id = sessionId.toLowerCase();
    const live = this.deps.live.find(id);
    if (live && !live.closed) return;
    const row = this.underway.has(id) ? undefined : await this.deps.stores.sessions.get(id);
    // Looked at again after the read: another reopen may have started meanwhile.
    const pending = this.underway.get(id);
    if (pending) {
      await pending.done;
      return;
    }
    const again = this.deps.live.find(id);
    if (again && !again.closed) return;
    if (!row || row.closeReason === null || !REOPENABLE_CLOSE_REASONS.has(row.closeReason)) return;
    await this.track(id, 'reopen', () => this.cold(id, { action: 'resume', sessionId: id }));
  }

  private async track(id: string, action: Underway['action'], run: () => Underway['done']): Underway['done'] {
    const done = run();
    this.underway.set(id, { action, done });
    try {
      return await done;
    } finally {
      this.underway.delete(id);
    }
  }

  private normalize(sessionId: string): string {
    // qwen answers a malformed id with 404 too (recording g, `not-a-uuid/load`).
    if (!isSessionId(sessionId)) throw notFound(sessionId);
    return sessionId.toLowerCase();
  }

  private async checkWorkspace(id: string, cwd: string): Promise<void> {
    const wanted = this.deps.workspaces.select(cwd);
    const row = await this.deps.stores.sessions.get(id);
    if (row && row.workspaceId !== wanted.id) {
      throw new BerthError('workspace_mismatch', `Session ${id} belongs to another workspace than ${cwd}`, {
        sessionId: id,
        boundWorkspace: this.workspaceCwd(row.workspaceId),
        requestedWorkspace: cwd,
      });
    }
  }

  private workspaceCwd(workspaceId: string): string {
    const ws = this.deps.workspaces.byId(workspaceId);
    return ws?.kind === 'local' ? ws.root : workspaceId;
  }

  private async attach(session: Session, req: RestoreRequest): Promise<Omit<RestoreOutcome, 'settled'>> {
    if (session.closed) throw notFound(session.id);
    const now = this.deps.clock.now();
    const clientId = session.clients.attach(req.requestedClientId, now);
    session.touch();
    const base = { session, attached: true, clientId, lastEventId: session.bus.lastEventId, artifactWarnings: [] };
    if (req.action !== 'load') return base;
    // What the live session has recorded so far: settled turns are the compacted part, the running one the journal.
    await session.flushTranscript();
    let outline = this.outlines.get(session);
    if (!outline) this.outlines.set(session, (outline = TranscriptOutline.empty(this.deps.stores.transcript, session.id)));
    const entries = await outline.current();
    const inFlight = new Set(session.pendingPrompts().map((e) => e.promptId));
    const isLive = (e: OutlineEntry) => e.promptId !== null && inFlight.has(e.promptId);
    // Between turns (most loads) every record is settled: no need to sort 10,000 entries into two lists.
    const settled = inFlight.size === 0 ? entries : entries.filter((e) => !isLive(e));
    return {
      ...base,
      replay: {
        compactedReplay: await outline.window(settled, windowOptions(session.id, req.historyPageSize, 'compacted_replay')),
        liveJournal: await outline.window(inFlight.size === 0 ? [] : entries.filter(isLive), windowOptions(session.id, undefined, 'live_journal')),
      },
    };
  }

  private window(
    sessionId: string,
    records: readonly TranscriptRecord[],
    pageSize: number | undefined,
    scope: 'compacted_replay' | 'live_journal',
    firstId?: number,
  ): ReplayWindow {
    return replayWindow(records, windowOptions(sessionId, pageSize, scope, firstId));
  }

  /** Restores a session that is not live: driver context from every record, a new bus, the stored settings. */
  private async cold(id: string, req: RestoreRequest): Underway['done'] {
    const { stores, live } = this.deps;
    const row = await stores.sessions.get(id);
    if (!row) throw notFound(id);
    const workspace = this.deps.workspaces.byId(row.workspaceId);
    if (!workspace) {
      throw new BerthError('session_conflict', `The workspace of session ${id} is no longer registered`, { sessionId: id });
    }
    const approvalMode = approvalFor(row.approvalMode, req.approvalMode);
    const records = await stores.transcript.all(id);
    const warnings: string[] = [];
    const init = this.initFrom(row, workspace, approvalMode, warnings);
    // A cold load numbers its snapshot 1..N on the new bus; live ids continue at N+1 (docs/client-api.md §5.3, §7.4).
    const compacted = req.action === 'load' ? this.window(id, records, req.historyPageSize, 'compacted_replay', 1) : undefined;
    const lastEventId = compacted?.eventCount ?? 0;
    const { session } = await live.spawn(init, { persisted: true, modelId: row.modelId, lastEventId });
    this.outlines.set(session, TranscriptOutline.of(stores.transcript, id, records));
    // The model context is rebuilt once the answer is on its way (or by whatever needs it first, Session.reopened).
    session.reopened(() => ({ history: historyFromRecords(records), usage: usageFromRecords(records) }));
    if (req.approvalMode !== undefined && approvalMode !== row.approvalMode) {
      session.publish({
        type: 'approval_mode_changed',
        data: { sessionId: id, previous: row.approvalMode, next: approvalMode, persisted: true },
      });
    }
    // A loaded session starts again, so its clients learn its commands as at creation.
    if (session.harness === 'built-in') session.publish(availableCommandsEvent(id));
    const unreadable = records.filter((r) => r.unreadable).length;
    if (unreadable > 0) warnings.push(`${unreadable} transcript record(s) could not be read and were skipped`);
    const replay = compacted ? { compactedReplay: compacted, liveJournal: this.window(id, [], undefined, 'live_journal') } : undefined;
    return { session, lastEventId, ...(replay ? { replay } : {}), warnings };
  }

  private initFrom(row: SessionRow, workspace: Workspace, approvalMode: SessionInit['approvalMode'], warnings: string[]): SessionInit {
    let cwd: string | null = workspace.kind === 'local' ? workspace.root : null;
    const worktree = row.worktree as SessionInit['worktree'];
    if (row.currentCwd && workspace.kind === 'local') {
      // A worktree removed since (by hand, or a cleanup) cannot host the session again; its workspace can.
      if (existsSync(row.currentCwd)) cwd = row.currentCwd;
      else warnings.push(`The session's working directory ${row.currentCwd} no longer exists; it runs in ${workspace.root}`);
    }
    return {
      id: row.id,
      workspace,
      cwd,
      scope: row.scope,
      createdAt: row.createdAt,
      approvalMode,
      displayName: row.displayName,
      prs: row.prs as SessionPr[],
      sourceType: row.sourceType,
      sourceId: row.sourceId,
      worktree: cwd === row.currentCwd ? worktree : null,
      branch: row.branch as SessionInit['branch'],
    };
  }
}

function windowOptions(sessionId: string, pageSize: number | undefined, scope: WindowOptions['scope'], firstId?: number): WindowOptions {
  return {
    sessionId,
    maxRecords: pageSize ?? DEFAULT_COMPACTED_REPLAY_RECORDS,
    maxBytes: MAX_COMPACTED_REPLAY_BYTES,
    scope,
    ...(firstId !== undefined ? { firstId } : {}),
  };
}

function notFound(id: string): BerthError {
  return new BerthError('session_not_found', `No session with id "${id}"`, { sessionId: id });
}
