/**
 * How long a node reuses where it last found another node's session instead of reading the
 * lease row again (docs/cluster-bus.md, Forwarding). A session changes hands only when its
 * owner dies, drains or lets it go; a request sent to the old owner in that second is refused
 * there with a retryable 503, and the next one reads the row again. One second is the
 * `retryAfterSeconds` those refusals advise.
 */
export const REMOTE_LOCATION_TTL_MS = 1_000;
/** Past this many remembered sessions, the expired ones are swept before another is added. */
const SWEEP_ABOVE = 10_000;

/** Where other nodes' sessions were found lately: `sessionId → nodeId`, each for a short while. */
export class RemoteLocations {
  private readonly known = new Map<string, { readonly nodeId: string; readonly until: number }>();

  constructor(
    private readonly now: () => number,
    private readonly ttlMs = REMOTE_LOCATION_TTL_MS,
  ) {}

  /** The node `sessionId` was found on, unless that was too long ago. */
  nodeOf(sessionId: string): string | undefined {
    const entry = this.known.get(sessionId);
    if (entry === undefined) return undefined;
    if (entry.until > this.now()) return entry.nodeId;
    this.known.delete(sessionId);
    return undefined;
  }

  remember(sessionId: string, nodeId: string): void {
    if (this.known.size >= SWEEP_ABOVE) this.sweep();
    this.known.set(sessionId, { nodeId, until: this.now() + this.ttlMs });
  }

  forget(sessionId: string): void {
    this.known.delete(sessionId);
  }

  /** A node that failed to answer, or refused a request, may not own what it owned: ask the store again. */
  forgetNode(nodeId: string): void {
    for (const [sessionId, entry] of this.known) if (entry.nodeId === nodeId) this.known.delete(sessionId);
  }

  private sweep(): void {
    const now = this.now();
    for (const [sessionId, entry] of this.known) if (entry.until <= now) this.known.delete(sessionId);
  }
}
