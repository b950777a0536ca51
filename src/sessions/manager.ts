import type { AgentDriver } from '../agents/driver.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config/config.js';
import { BerthError } from '../protocol/errors/index.js';
import type { Logger } from '../log.js';
import type { PromptRepository } from '../store/repos/prompts.js';
import type { SessionRepository } from '../store/repos/sessions.js';
import type { TranscriptRepository } from '../store/repos/transcript.js';
import type { WorkspaceRegistry } from '../workspace/registry.js';
import type { Workspace } from '../workspace/types.js';
import { DEFAULT_APPROVAL_MODE, parseApprovalMode, type ApprovalMode } from './approval.js';
import { isSessionId, newSessionId } from './ids.js';
import type { SessionBus, SessionTools } from './ports.js';
import { TranscriptRecorder } from './recorder.js';
import { runWorkspaceOf } from './run-workspace.js';
import { Session, type SessionInit } from './session.js';
import { prepareWorktree, undoWorktree, type WorktreeResult } from './worktree.js';

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
  readonly modelServiceId?: string;
  readonly modelId?: string | null;
}

export interface DriverResult {
  readonly driver: AgentDriver;
  /** Present when a model service was requested: whether it could be applied (spec §5.1, soft failure). */
  readonly modelApplied?: boolean;
  readonly modelError?: string;
}

/** How the manager builds a session's parts; the composition root supplies them. */
export interface SessionFactories {
  /** `lastEventId`: ids already used by a restored session's replay snapshot, so live ids continue after them (spec §7.4). */
  createBus(options?: { lastEventId?: number }): SessionBus;
  createDriver(request: DriverRequest): Promise<DriverResult>;
  /** Told when a live session has closed (e.g. to stop the commands it started). */
  sessionClosed?(sessionId: string): void;
  /** Told when a session has become live (fresh or restored), e.g. to give it a module tab. */
  sessionOpened?(session: Session): void;
  /** Told when a live session has run all its queued prompts, e.g. to offer it a waiting module message. */
  sessionIdle?(session: Session): void;
  /** The tool layer for this session; `workspace` is where tools run (a worktree has its own root). */
  toolsFor(workspace: Workspace, sessionId: string): SessionTools;
}

export interface SessionStores {
  readonly sessions: SessionRepository;
  readonly transcript: TranscriptRepository;
  readonly prompts: PromptRepository;
}

export interface CreatedSession {
  readonly session: Session;
  readonly attached: boolean;
  readonly clientId: string;
  readonly modelApplied?: boolean;
}

/**
 * Every live session of the daemon: creation and attach (spec §5.1), lookup,
 * close and shutdown (the idle reaper is reaper.ts). One process hosts them all — no child
 * process per workspace.
 */
export class SessionManager {
  private readonly live = new Map<string, Session>();
  /** The shared (`single` scope) session of each workspace, by workspace id. */
  private readonly shared = new Map<string, string>();
  /** Creations of a workspace's shared session under way, so concurrent `single` creates coalesce. */
  private readonly creatingShared = new Map<string, Promise<CreatedSession>>();

  constructor(
    private readonly deps: {
      readonly config: Config;
      readonly clock: Clock;
      readonly log: Logger;
      readonly workspaces: WorkspaceRegistry;
      readonly stores: SessionStores;
      readonly factories: SessionFactories;
    },
  ) {}

  get size(): number {
    return this.live.size;
  }

  list(): readonly Session[] {
    return [...this.live.values()];
  }

  find(id: string): Session | undefined {
    return this.live.get(id.toLowerCase());
  }

  /** The live session, or 404 `session_not_found`. */
  get(id: string): Session {
    const s = this.find(id);
    if (!s || s.closed) throw new BerthError('session_not_found', `No session with id "${id}"`, { sessionId: id });
    return s;
  }

  async create(req: CreateSessionRequest, requestedClientId: string | undefined): Promise<CreatedSession> {
    const workspace = this.deps.workspaces.select(req.cwd);
    const approvalMode = req.approvalMode === undefined ? DEFAULT_APPROVAL_MODE : parseApprovalMode(req.approvalMode);
    const wantsGit = req.worktree !== undefined || req.branch !== undefined;
    let id: string | undefined;
    if (req.sessionId !== undefined && req.sessionId !== null) {
      if (!isSessionId(req.sessionId)) {
        throw new BerthError(
          'invalid_session_id',
          '`sessionId` must be an RFC UUID v1-v5 (e.g. "550e8400-e29b-41d4-a716-446655440000")',
        );
      }
      id = req.sessionId.toLowerCase();
      this.checkIdFree(id);
    }
    // A caller id, a worktree or a branch always mean a fresh session (spec §5.1).
    const scope = id !== undefined || wantsGit ? 'thread' : (req.sessionScope ?? 'single');
    if (scope === 'single') {
      const sharedId = this.shared.get(workspace.id);
      const existing = sharedId ? this.live.get(sharedId) : undefined;
      if (existing && !existing.closed) return this.attach(existing, requestedClientId);
      const underway = this.creatingShared.get(workspace.id);
      // spec §5.1: concurrent single creates coalesce; exactly one caller sees attached:false.
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
    let id = requestedId;
    this.checkCapacity();
    id ??= newSessionId();
    let cwd: string | null = workspace.kind === 'local' ? workspace.root : null;
    let worktree: SessionInit['worktree'] = null;
    let branch: SessionInit['branch'] = null;
    let prepared: WorktreeResult | null = null;
    if (wantsGit) {
      if (workspace.kind !== 'local') {
        throw new BerthError('invalid_worktree', 'worktree and branch are only available on local workspaces');
      }
      prepared = await prepareWorktree(workspace.root, this.deps.config.home, workspace.id, id, req);
      ({ worktree, branch, cwd } = prepared);
    }
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
      throw err;
    }
    const clientId = created.session.clients.attach(requestedClientId, this.deps.clock.now());
    if (req.approvalMode !== undefined) {
      created.session.publish({
        type: 'approval_mode_changed',
        originatorClientId: clientId,
        data: { sessionId: id, previous: DEFAULT_APPROVAL_MODE, next: approvalMode, persisted: false },
      });
    }
    if (created.modelApplied === false) {
      created.session.publish({
        type: 'model_switch_failed',
        originatorClientId: clientId,
        data: { sessionId: id, requestedModelId: req.modelServiceId ?? '', error: created.modelError ?? 'unknown model service' },
      });
    }
    return {
      session: created.session,
      attached: false,
      clientId,
      ...(created.modelApplied !== undefined ? { modelApplied: created.modelApplied } : {}),
    };
  }

  private checkIdFree(id: string): void {
    if (this.live.has(id)) {
      throw new BerthError('session_id_conflict', `Session "${id}" already exists or is being created.`, {
        sessionId: id,
        conflict: 'live',
      });
    }
    if (this.deps.stores.sessions.get(id)) {
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

  /** Builds a live session from its init (fresh, or restored from the store by issue 4's load/resume). */
  async spawn(
    init: SessionInit,
    options: { modelServiceId?: string; modelId?: string | null; persisted?: boolean; lastEventId?: number },
  ): Promise<{ session: Session; modelApplied?: boolean; modelError?: string }> {
    const { config, clock, log, stores, factories } = this.deps;
    const runWorkspace = runWorkspaceOf(init);
    const driverResult = await factories.createDriver({
      sessionId: init.id,
      workspace: runWorkspace,
      modelServiceId: options.modelServiceId,
      modelId: options.modelId,
    });
    // The id may have been taken while the driver was being built (a concurrent create or load).
    try {
      if (this.live.has(init.id)) {
        throw new BerthError('session_id_conflict', `Session "${init.id}" already exists or is being created.`, {
          sessionId: init.id,
          conflict: 'live',
        });
      }
      this.checkCapacity();
    } catch (err) {
      driverResult.driver.dispose();
      throw err;
    }
    const bus = factories.createBus(options.lastEventId ? { lastEventId: options.lastEventId } : undefined);
    let session!: Session;
    const transcript = new TranscriptRecorder(init.id, stores.transcript, clock, log, () => {
      session.publish({ type: 'session_recording_degraded', data: { sessionId: init.id, reason: 'write_failed' } });
    });
    if (!options.persisted) {
      stores.sessions.insert({
        id: init.id,
        workspaceId: init.workspace.id,
        scope: init.scope,
        createdAt: init.createdAt,
        updatedAt: init.createdAt,
        displayName: init.displayName,
        titleSource: null,
        prs: init.prs,
        modelId: driverResult.driver.state().models.currentModelId,
        approvalMode: init.approvalMode,
        sourceType: init.sourceType,
        sourceId: init.sourceId,
        worktree: init.worktree,
        branch: init.branch,
        currentCwd: init.cwd,
        closedAt: null,
        closeReason: null,
      });
    }
    session = new Session(init, {
      clock,
      log,
      config,
      bus,
      driver: driverResult.driver,
      tools: factories.toolsFor(runWorkspace, init.id),
      transcript,
      prompts: stores.prompts,
      sessions: stores.sessions,
      onClosed: (s) => this.forget(s),
      onIdle: (s) => factories.sessionIdle?.(s),
    });
    this.live.set(init.id, session);
    // A single-scope session (fresh, or restored after a restart) is its workspace's shared one
    // unless another already took that place.
    if (init.scope === 'single' && !this.shared.has(init.workspace.id)) this.shared.set(init.workspace.id, init.id);
    factories.sessionOpened?.(session);
    return {
      session,
      ...(driverResult.modelApplied !== undefined ? { modelApplied: driverResult.modelApplied } : {}),
      ...(driverResult.modelError !== undefined ? { modelError: driverResult.modelError } : {}),
    };
  }

  private forget(session: Session): void {
    this.live.delete(session.id);
    this.deps.factories.sessionClosed?.(session.id);
    if (this.shared.get(session.workspace.id) === session.id) this.shared.delete(session.workspace.id);
  }

  /** `DELETE /session/{id}` (spec §5.2). */
  close(id: string, clientId: string | undefined): void {
    const session = this.get(id);
    session.clients.require(clientId);
    session.close('client_close', clientId ?? null);
  }

  /** Finds which live session holds an open interaction (the legacy vote route, spec §9.4). */
  findByRequest(requestId: string): Session | undefined {
    for (const s of this.live.values()) if (s.interactions.has(requestId)) return s;
    return undefined;
  }

  /** Daemon shutdown: every prompt ends with `daemon_shutdown`, every stream gets its terminal frame. */
  shutdown(): void {
    for (const s of [...this.live.values()]) s.close('daemon_shutdown', null, 'daemon_shutdown');
  }

  /** Resolves the approval mode a restore asks for, or keeps the stored one. */
  static approvalFor(stored: string, requested: string | undefined): ApprovalMode {
    if (requested !== undefined) return parseApprovalMode(requested);
    try {
      return parseApprovalMode(stored);
    } catch {
      return DEFAULT_APPROVAL_MODE;
    }
  }
}
