/**
 * Deep-health counters (`GET /health?deep=1`, OpenAPI `HealthResponse`) come
 * from the services that own them; each registers a contributor here, so the
 * discovery route never reaches into another concept's state.
 */
export type HealthCounters = Readonly<Record<string, unknown>>;

export class HealthRegistry {
  private readonly contributors: Array<() => HealthCounters> = [];

  contribute(fn: () => HealthCounters): void {
    this.contributors.push(fn);
  }

  snapshot(): HealthCounters {
    const out: HealthCounters = {};
    for (const fn of this.contributors) Object.assign(out, fn());
    return out;
  }
}
