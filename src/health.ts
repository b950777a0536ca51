/**
 * Deep-health counters (`GET /health?deep=1`, OpenAPI `HealthResponse`) come
 * from the services that own them; each registers a contributor here, so the
 * discovery route never reaches into another concept's state.
 */
export type HealthCounters = Readonly<Record<string, unknown>>;

/** One thing a node needs to serve (its store, its bus), as a readiness probe answers it. */
export interface ReadinessCheck {
  readonly name: string;
  readonly ready: boolean;
  readonly detail?: Readonly<Record<string, unknown>>;
}

/** Whether the daemon can serve now: every check ready, each reported by name. */
export interface Readiness {
  readonly ready: boolean;
  /** The first check that is not ready, by name. */
  readonly reason?: string;
  readonly checks: Readonly<Record<string, { readonly ready: boolean } & Readonly<Record<string, unknown>>>>;
}

export class HealthRegistry {
  private readonly contributors: Array<() => HealthCounters> = [];
  private readonly probes: Array<() => Promise<ReadinessCheck>> = [];

  contribute(fn: () => HealthCounters): void {
    this.contributors.push(fn);
  }

  /**
   * Adds a readiness probe (cluster mode: the store, the bus; docs/cluster-leases.md). A probe
   * bounds its own time and answers not ready rather than throw.
   */
  probe(fn: () => Promise<ReadinessCheck>): void {
    this.probes.push(fn);
  }

  /** Runs every probe; null when there are none (a single daemon is ready once it listens). */
  async readiness(): Promise<Readiness | null> {
    if (this.probes.length === 0) return null;
    const results = await Promise.all(this.probes.map((p) => p()));
    const checks = Object.fromEntries(results.map((r) => [r.name, { ...r.detail, ready: r.ready }]));
    const failed = results.find((r) => !r.ready);
    return failed ? { ready: false, reason: `${failed.name}_not_ready`, checks } : { ready: true, checks };
  }

  snapshot(): HealthCounters {
    const out: HealthCounters = {};
    for (const fn of this.contributors) Object.assign(out, fn());
    return out;
  }
}
