import type { Logger } from '../log.js';
import { BerthError } from '../protocol/errors/index.js';
import type { SessionOwnership } from '../sessions/ownership.js';
import type { PgLeaseRepository } from '../store/pg/leases.js';
import type { LeaseKeeper } from './leases.js';
import type { SessionLocation, SessionPlacement } from './placement.js';
import type { RemoteSessionPolicy } from './remote.js';

/**
 * This daemon as one node of a cluster (docs/cluster-leases.md): where a
 * session runs (placement), and the ownership the session manager asks before
 * it makes a session live here. Taking a session is: its lease, then what its
 * dead owner left settled (`recover`, fenced by the new token), then the
 * manager's usual reopen on a new epoch.
 */
export class LeaseNode implements SessionPlacement, SessionOwnership {
  private draining = false;
  /** Claims under way, so two requests for one session take its lease once. */
  private readonly claiming = new Map<string, Promise<void>>();

  constructor(
    private readonly deps: {
      readonly nodeId: string;
      readonly leases: LeaseKeeper;
      readonly repo: PgLeaseRepository;
      /** Settles what the session's previous owner left open, its writes naming it (fenced by the new token); false when no such session is stored. */
      readonly recover: (sessionId: string) => Promise<boolean>;
      readonly remote: RemoteSessionPolicy;
      readonly log: Logger;
    },
  ) {}

  get nodeId(): string {
    return this.deps.nodeId;
  }

  get isDraining(): boolean {
    return this.draining;
  }

  async locate(sessionId: string): Promise<SessionLocation> {
    if (this.deps.leases.holds(sessionId)) return { kind: 'local' };
    const row = await this.deps.repo.get(sessionId);
    // This node's id without this process holding it: an earlier run under the same id left it.
    if (!row || !row.valid || row.nodeId === this.nodeId) return { kind: 'free' };
    return { kind: 'remote', nodeId: row.nodeId };
  }

  claim(sessionId: string): Promise<void> {
    if (this.draining) return Promise.reject(this.drainingError());
    let claim = this.claiming.get(sessionId);
    if (!claim) {
      claim = this.take(sessionId).finally(() => this.claiming.delete(sessionId));
      this.claiming.set(sessionId, claim);
    }
    return claim;
  }

  /** Its lease is taken by its first fenced write, in the same round trip (LeaseKeeper.reserve); that write fails with `session_id_conflict` when another node holds it. */
  async claimNew(sessionId: string): Promise<void> {
    if (this.draining) throw this.drainingError();
    this.deps.leases.reserve(sessionId);
  }

  released(sessionId: string): void {
    this.deps.leases.release(sessionId).catch((err: unknown) => this.deps.log.warn({ err, sessionId }, 'lease release failed'));
  }

  /** A valid lease row of another node: the session is live there (this node's own id counts only for what it holds). */
  async liveElsewhere(sessionIds: readonly string[]): Promise<Set<string>> {
    const holders = await this.deps.repo.holders(sessionIds);
    return new Set([...holders].filter(([, nodeId]) => nodeId !== this.nodeId).map(([sessionId]) => sessionId));
  }

  /** Of these sessions, the node holding each one's valid lease. */
  holders(sessionIds: readonly string[]): Promise<Map<string, string>> {
    return this.deps.repo.holders(sessionIds);
  }

  /**
   * SIGTERM in cluster mode (docs/cluster-leases.md, Drain): from now on nothing is made
   * live here; the session manager then hands its sessions over, and `stop` gives every
   * lease back so other nodes take them at once rather than after the lease time.
   */
  beginDrain(): void {
    this.draining = true;
  }

  async stop(): Promise<void> {
    this.draining = true;
    await this.deps.leases.releaseAll();
  }

  private drainingError(): BerthError {
    return new BerthError('node_draining', `Node ${this.nodeId} is shutting down`, { nodeId: this.nodeId });
  }

  private async take(sessionId: string): Promise<void> {
    if (this.deps.leases.holds(sessionId)) return;
    // Twice at most: the owner's lease may expire between the failed take and the look at it.
    for (let attempt = 0; attempt < 2; attempt++) {
      if ((await this.deps.leases.acquire(sessionId)) !== null) return this.settle(sessionId);
      const where = await this.locate(sessionId);
      if (where.kind === 'remote') return this.deps.remote(sessionId, where.nodeId);
    }
    throw new BerthError('session_busy', `Session ${sessionId} is changing hands; retry`, { sessionId });
  }

  private async settle(sessionId: string): Promise<void> {
    try {
      const exists = await this.deps.recover(sessionId);
      if (!exists) await this.deps.leases.release(sessionId);
    } catch (err) {
      await this.deps.leases.release(sessionId).catch(() => undefined);
      throw err;
    }
  }
}
