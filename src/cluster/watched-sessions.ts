/** Past this many marked sessions, the expired ones are swept before another is marked. */
const SWEEP_ABOVE = 10_000;

/**
 * The sessions this node runs that another node streams now (docs/cluster-bus.md, Following a
 * session from another node): only their events go out on the bus. A follower marks a session
 * when it asks for its replay, before the replay is cut, so every event after the replay is
 * published; its `followed` notices keep the mark while it streams. A mark lasts a few notice
 * intervals, so one late notice does not silence a stream; after the last follower leaves, the
 * events stop once it runs out.
 */
export class WatchedSessions {
  private readonly until = new Map<string, number>();

  constructor(
    private readonly now: () => number,
    private readonly holdMs: number,
  ) {}

  mark(sessionId: string): void {
    if (this.until.size >= SWEEP_ABOVE) this.sweep();
    this.until.set(sessionId, this.now() + this.holdMs);
  }

  has(sessionId: string): boolean {
    const until = this.until.get(sessionId);
    if (until === undefined) return false;
    if (until > this.now()) return true;
    this.until.delete(sessionId);
    return false;
  }

  private sweep(): void {
    const now = this.now();
    for (const [sessionId, until] of this.until) if (until <= now) this.until.delete(sessionId);
  }
}
