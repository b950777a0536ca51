import type { Logger } from '../log.js';
import type { WriteFence } from '../store/pg/db.js';
import type { PgLeaseRepository } from '../store/pg/leases.js';

/**
 * The leases this node holds, kept alive (docs/cluster-leases.md): one
 * statement renews them all every third of the lease time. A lease the
 * renewal no longer returns, or returns with another token, is lost, and so
 * is every lease when renewals have failed for a whole lease time (the
 * database may already have let another node take them). A lost session is
 * reported once through `onLost`, and its fence refuses writes from then on.
 */
export class LeaseKeeper {
  private readonly held = new Map<string, number>();
  /** New sessions' leases, taken by each one's first write in the same transaction (`reserve`). */
  private readonly unwritten = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  /** performance.now() of the last renewal that succeeded: a duration on this machine, not a time to compare with another's. */
  private renewedAt = performance.now();
  private renewing: Promise<void> | undefined;

  constructor(
    private readonly deps: {
      readonly repo: PgLeaseRepository;
      readonly nodeId: string;
      readonly leaseMs: number;
      readonly log: Logger;
      readonly onLost: (sessionId: string) => void;
    },
  ) {}

  start(): void {
    this.timer ??= setInterval(() => void this.renew(), Math.max(1, Math.floor(this.deps.leaseMs / 3)));
    this.timer.unref?.();
  }

  holds(sessionId: string): boolean {
    return this.held.has(sessionId) || this.unwritten.has(sessionId);
  }

  get count(): number {
    return this.held.size;
  }

  /** Takes the session's lease: its token, or null when another node holds a valid one. */
  async acquire(sessionId: string): Promise<number | null> {
    const token = await this.deps.repo.acquire(sessionId, this.deps.nodeId, this.deps.leaseMs);
    if (token !== null) this.held.set(sessionId, token);
    return token;
  }

  /**
   * A new session's lease, taken with its first write (its row) rather than a round trip of its
   * own: that write's transaction takes the lease and fails whole when another node holds it.
   */
  reserve(sessionId: string): void {
    if (!this.held.has(sessionId)) this.unwritten.add(sessionId);
  }

  /** The fence of a session's writes: the token read at each write, so a lost lease refuses at once. */
  fence(sessionId: string): WriteFence {
    return {
      sessionId,
      nodeId: this.deps.nodeId,
      token: () => this.held.get(sessionId),
      refused: () => this.lose(sessionId, 'a write was refused'),
      acquiring: () => (this.unwritten.has(sessionId) ? this.deps.leaseMs : undefined),
      acquired: (token) => {
        if (this.unwritten.delete(sessionId)) this.held.set(sessionId, token);
      },
    };
  }

  /** Gives the lease back so another node may take the session at once. */
  async release(sessionId: string): Promise<void> {
    // Never written: no row holds it.
    if (this.unwritten.delete(sessionId)) return;
    const token = this.held.get(sessionId);
    if (token === undefined) return;
    this.held.delete(sessionId);
    await this.deps.repo.release(sessionId, this.deps.nodeId, token);
  }

  /** Stops renewing and gives every lease back (a drain). */
  async releaseAll(): Promise<void> {
    this.stop();
    await this.renewing;
    this.held.clear();
    this.unwritten.clear();
    await this.deps.repo.releaseAll(this.deps.nodeId);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One renewal round; the timer runs it, tests call it. */
  renew(): Promise<void> {
    this.renewing ??= this.renewOnce().finally(() => (this.renewing = undefined));
    return this.renewing;
  }

  private async renewOnce(): Promise<void> {
    // What this round asks about: a lease taken again while it runs has a new token the answer cannot show.
    const asked = new Map(this.held);
    let current: Map<string, number>;
    try {
      current = await this.deps.repo.renew(this.deps.nodeId, [...asked.keys()], this.deps.leaseMs);
    } catch (err) {
      this.deps.log.warn({ err }, 'lease renewal failed');
      if (performance.now() - this.renewedAt >= this.deps.leaseMs) {
        for (const id of [...this.held.keys()]) this.lose(id, 'renewals failed for a whole lease time');
      }
      return;
    }
    this.renewedAt = performance.now();
    for (const [id, token] of asked) {
      if (this.held.get(id) === token && current.get(id) !== token) this.lose(id, 'another node took it');
    }
  }

  private lose(sessionId: string, why: string): void {
    // A new session whose first write was refused never ran here: nothing to stop.
    if (this.unwritten.delete(sessionId)) return;
    if (!this.held.delete(sessionId)) return;
    this.deps.log.warn({ sessionId, why }, 'session lease lost; the session stops on this node');
    this.deps.onLost(sessionId);
  }
}
