import type { Clock } from '../clock.js';
import type { Config } from '../config/config.js';
import { BerthError } from '../protocol/errors/index.js';
import type { Logger } from '../log.js';
import type { WorkspaceRegistry } from '../workspace/registry.js';
import type { Workspace } from '../workspace/types.js';
import { DEFAULT_APPROVAL_MODE, parseApprovalMode, type ApprovalMode } from './approval.js';
import type { CreateSessionRequest, CreatedSession, SessionFactories, SessionStores } from './factories.js';
import { isSessionId, newSessionId } from './ids.js';
import type { SessionRow } from './records.js';
import { sessionListCursor, type SessionListQuery } from './list-page.js';
import { SessionRestorer, type RestoreOutcome, type RestoreRequest } from './restore.js';
import type { Session, SessionInit } from './session.js';
import { spawnSession, type SpawnOptions, type Spawned } from './spawn.js';
import { prepareWorktree, undoWorktree, type WorktreeResult } from './worktree.js';
import { whileClaimed } from './claims.js';
import { announceCreated } from './created-events.js';
import type { SessionOwnership } from './ownership.js';
import { HANDED_OVER } from './recovery.js';
export type { CreateSessionRequest, CreatedSession, DriverRequest, DriverResult, SessionFactories, SessionStores } from './factories.js';

/**
 * Every session of the daemon as the faces reach it: creation and attach
 * (docs/client-api.md §5.1), lookup, `open` (which brings back a session a stopped daemon
 * lost), load and resume (restore.ts), close and shutdown (the idle reaper is
 * reaper.ts). One process hosts them all — no child process per workspace.
 */
export class SessionManager {
  private readonly live = new Map<string, Session>();
  /** The shared (`single` scope) session of each workspace, by workspace id. */
  private readonly shared = new Map<string, string>();
  /** Creations of a workspace's shared session under way, so concurrent `single` creates coalesce. */
  private readonly creatingShared = new Map<string, Promise<CreatedSession>>();
  /** Closed sessions' last writes (row, transcript) still being stored: shutdown awaits them before the store closes. */
  private readonly draining = new Set<Promise<void>>();
  private readonly restorer: SessionRestorer;
  private readonly isLive = (id: string): boolean => this.find(id)?.closed === false;

  constructor(
    private readonly deps: {
      readonly config: Config;
      readonly clock: Clock;
      readonly log: Logger;
      readonly workspaces: WorkspaceRegistry;
      readonly stores: SessionStores;
      readonly factories: SessionFactories;
      /** Cluster mode: which sessions this node may run (docs/cluster-leases.md); absent on a single daemon. */
      readonly ownership?: SessionOwnership;
      /** Cluster mode: a session's own repositories, whose writes name it so that its lease fences them. */
      readonly storesOf?: (sessionId: string) => SessionStores;
    },
  ) {
    this.restorer = new SessionRestorer({
      live: { find: (id) => this.find(id), spawn: (init, options) => this.spawn(init, options) },
      stores: deps.stores,
      workspaces: deps.workspaces,
      clock: deps.clock,
    });
  }

  get size(): number {
    return this.live.size;
  }

  list(): readonly Session[] {
    return [...this.live.values()];
  }

  find(id: string): Session | undefined {
    return this.live.get(id.toLowerCase());
  }

  /**
   * One page of stored sessions in store order, each with whether it is live now (here, or on another node: one
   * lease look per page), and the next page's cursor when there may be more (`GET /sessions`, docs/client-api.md §5.11).
   */
  async stored(query: SessionListQuery): Promise<{ readonly sessions: { row: SessionRow; live: boolean }[]; readonly nextCursor?: string }> {
    await this.written(); // the rows as the sessions left them
    const found = await this.deps.stores.sessions.listAfter(query.after, query.limit + 1);
    const page = found.slice(0, query.limit);
    const elsewhere = this.deps.ownership ? await this.deps.ownership.liveElsewhere(page.map(({ row }) => row.id)) : undefined;
    const sessions = page.map(({ row }) => {
      const live = this.live.get(row.id);
      return { row, live: (live !== undefined && !live.closed) || elsewhere?.has(row.id) === true };
    });
    return found.length > query.limit ? { sessions, nextCursor: sessionListCursor(page.at(-1)!.position) } : { sessions };
  }

  /** Resolves once submitted writes are stored: one session's (live, or closed a moment ago), or every session's. */
  written(id?: string): Promise<unknown> {
    const live = id === undefined ? [...this.live.values()] : [this.find(id)].filter((s) => s !== undefined);
    return Promise.all([...live.map((s) => s.flushWrites()), ...this.draining]);
  }

  /** The live session, or 404 `session_not_found` (503 for one handed over a moment ago: closed-session.ts). */
  get(id: string): Session {
    const s = this.find(id);
    if (!s) throw new BerthError('session_not_found', `No session with id "${id}"`, { sessionId: id });
    s.assertOpen();
    return s;
  }

  /**
   * The live session, brought back first when the daemon lost it (a crash or a shutdown closed it as `daemon_lost` /
   * `daemon_shutdown`): as a resume would, on a new bus epoch, so a client with an old cursor is told to resync
   * (docs/client-api.md §5.10, §7.4). Sessions closed on purpose (DELETE, idle reaper) stay closed: 404 `session_not_found`.
   */
  async open(id: string): Promise<Session> {
    await whileClaimed(this.deps.ownership, id, this.isLive, () => this.restorer.reopen(id));
    return this.get(id);
  }

  /** `POST /session/{id}/load|resume` (docs/client-api.md §5.3, §5.4). */
  restore(req: RestoreRequest): Promise<RestoreOutcome> {
    return whileClaimed(this.deps.ownership, req.sessionId, this.isLive, () => this.restorer.restore(req));
  }

  async create(req: CreateSessionRequest, requestedClientId: string | undefined): Promise<CreatedSession> {
    const workspace = this.deps.workspaces.select(req.cwd);
    const approvalMode = req.approvalMode === undefined ? DEFAULT_APPROVAL_MODE : parseApprovalMode(req.approvalMode);
    const wantsGit = req.worktree !== undefined || req.branch !== undefined;
    let id: string | undefined;
    if (req.sessionId !== undefined && req.sessionId !== null) {
      if (!isSessionId(req.sessionId)) {
        throw new BerthError('invalid_session_id', '`sessionId` must be an RFC UUID v1-v5 (e.g. "550e8400-e29b-41d4-a716-446655440000")');
      }
      id = req.sessionId.toLowerCase();
      await this.checkIdFree(id);
    }
    // A caller id, a worktree or a branch always mean a fresh session (docs/client-api.md §5.1).
    const scope = id !== undefined || wantsGit ? 'thread' : (req.sessionScope ?? 'single');
    if (scope === 'single') {
      const sharedId = this.shared.get(workspace.id);
      const existing = sharedId ? this.live.get(sharedId) : undefined;
      if (existing && !existing.closed) return this.attach(existing, requestedClientId);
      const underway = this.creatingShared.get(workspace.id);
      // docs/client-api.md §5.1: concurrent single creates coalesce; exactly one caller sees attached:false.
      if (underway) return underway.then((c) => this.attach(c.session, requestedClientId));
      const creating = this.createFresh(req, workspace, approvalMode, scope, id, requestedClientId);
      this.creatingShared.set(workspace.id, creating);
      try {
        return await creating;
      } finally {
        this.creatingShared.delete(workspace.id);
      }
    }
    return this.createFresh(req, workspace, approvalMode, scope, id, requestedClientId);
  }

  private attach(session: Session, requestedClientId: string | undefined): CreatedSession {
    if (session.closed) throw new BerthError('session_not_found', `No session with id "${session.id}"`, { sessionId: session.id });
    const clientId = session.clients.attach(requestedClientId, this.deps.clock.now());
    session.touch();
    return { session, attached: true, clientId };
  }

  private async createFresh(
    req: CreateSessionRequest,
    workspace: Workspace,
    approvalMode: ApprovalMode,
    scope: 'single' | 'thread',
    requestedId: string | undefined,
    requestedClientId: string | undefined,
  ): Promise<CreatedSession> {
    const wantsGit = req.worktree !== undefined || req.branch !== undefined;
    this.checkCapacity();
    const id = requestedId ?? newSessionId();
    let cwd: string | null = workspace.kind === 'local' ? workspace.root : null;
    let worktree: SessionInit['worktree'] = null;
    let branch: SessionInit['branch'] = null;
    let prepared: WorktreeResult | null = null;
    if (wantsGit) {
      if (workspace.kind !== 'local') throw new BerthError('invalid_worktree', 'worktree and branch are only available on local workspaces');
      prepared = await prepareWorktree(workspace.root, this.deps.config.home, workspace.id, id, req);
      ({ worktree, branch, cwd } = prepared);
    }
    await this.deps.ownership?.claimNew(id);
    const spawning = this.spawn(
      {
        id,
        workspace,
        cwd,
        scope,
        createdAt: this.deps.clock.now(),
        approvalMode,
        displayName: null,
        prs: [],
        sourceType: req.sourceType ?? null,
        sourceId: req.sourceId ?? null,
        worktree,
        branch,
      },
      { modelServiceId: req.modelServiceId },
    );
    let created: Awaited<typeof spawning>;
    try {
      created = await spawning;
    } catch (err) {
      // The session never came to be: take back the worktree or branch made for it.
      if (prepared && workspace.kind === 'local') await undoWorktree(workspace.root, prepared);
      this.deps.ownership?.released(id);
      throw err;
    }
    const clientId = created.session.clients.attach(requestedClientId, this.deps.clock.now());
    return announceCreated(created, req, approvalMode, clientId);
  }

  private async checkIdFree(id: string): Promise<void> {
    if (this.live.has(id)) {
      throw new BerthError('session_id_conflict', `Session "${id}" already exists or is being created.`, {
        sessionId: id,
        conflict: 'live',
      });
    }
    if (await this.deps.stores.sessions.get(id)) {
      throw new BerthError('session_id_conflict', `Session "${id}" already exists.`, { sessionId: id, conflict: 'persisted' });
    }
  }

  private checkCapacity(): void {
    const limit = this.deps.config.maxSessions;
    if (limit !== null && this.live.size >= limit) {
      throw new BerthError('session_limit_exceeded', `Session limit reached (${limit} live sessions)`, {
        limit,
        scope: 'total',
      });
    }
  }

  /** Builds a live session from its init (fresh, or restored from the store). */
  private async spawn(init: SessionInit, options: SpawnOptions): Promise<Spawned> {
    const { config, clock, log, stores, factories } = this.deps;
    const spawned = await spawnSession(
      {
        config,
        clock,
        log,
        stores: this.deps.storesOf?.(init.id) ?? stores,
        factories,
        checkAdmissible: (id) => {
          // The id may have been taken while the driver was being built (a concurrent create or load).
          if (this.live.has(id)) {
            throw new BerthError('session_id_conflict', `Session "${id}" already exists or is being created.`, {
              sessionId: id,
              conflict: 'live',
            });
          }
          this.checkCapacity();
        },
        onClosed: (s) => this.forget(s),
      },
      init,
      options,
    );
    const { session } = spawned;
    this.live.set(init.id, session);
    // A single-scope session (fresh, or restored after a restart) is its workspace's shared one
    // unless another already took that place.
    if (init.scope === 'single' && !this.shared.has(init.workspace.id)) this.shared.set(init.workspace.id, init.id);
    await factories.sessionOpened?.(session, options.persisted !== true);
    return spawned;
  }

  private forget(session: Session): void {
    this.live.delete(session.id);
    const written = session.flushWrites().finally(() => {
      this.draining.delete(written);
      this.deps.ownership?.released(session.id); // cluster mode: its lease goes back once its last writes are stored
    });
    this.draining.add(written);
    this.deps.factories.sessionClosed?.(session.id);
    if (this.shared.get(session.workspace.id) === session.id) this.shared.delete(session.workspace.id);
  }

  /** `DELETE /session/{id}` (docs/client-api.md §5.2). */
  close(id: string, clientId: string | undefined): void {
    const session = this.get(id);
    session.clients.require(clientId);
    session.close('client_close', clientId ?? null);
  }

  /** Finds which live session holds an open interaction (the legacy vote route, docs/client-api.md §9.4). */
  findByRequest(requestId: string): Session | undefined {
    return [...this.live.values()].find((s) => s.interactions.has(requestId));
  }

  /** Daemon shutdown: every prompt ends with `daemon_shutdown`, every stream gets its terminal frame, every write is stored. */
  async shutdown(): Promise<void> {
    // Cluster mode: another node serves them next, so their rows stay open (docs/cluster-leases.md, Drain).
    for (const s of [...this.live.values()]) s.close(this.deps.ownership ? HANDED_OVER : 'daemon_shutdown', null, 'daemon_shutdown');
    await Promise.all(this.draining);
  }

  /** Cluster mode: the session leaves this node at once, its row left open (its lease was lost). */
  handOver(id: string): void {
    this.find(id)?.close(HANDED_OVER, null, 'daemon_shutdown');
  }
}
