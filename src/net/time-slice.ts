/**
 * Long loops over outside input (a 1,000-tool catalog) give the event loop back
 * every few milliseconds, so `/health` and every other client are answered
 * between slices. `await slicer.tick()` inside the loop yields
 * only once the current slice has used its budget.
 */
export const SLICE_BUDGET_MS = 8;

export class TimeSlicer {
  private sliceStart = performance.now();

  constructor(private readonly budgetMs = SLICE_BUDGET_MS) {}

  async tick(): Promise<void> {
    if (performance.now() - this.sliceStart < this.budgetMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.sliceStart = performance.now();
  }
}
