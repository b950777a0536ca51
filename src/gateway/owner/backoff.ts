/**
 * The wait before dialling again after `failures` channels in a row closed
 * without reaching `ready` (0 after a channel that did): exponential from
 * `baseMs`, capped at `maxMs`, with "equal jitter" — half fixed, half random —
 * so owners cut off together do not all dial back in the same instant.
 */
export function reconnectDelay(failures: number, baseMs: number, maxMs: number, random: () => number): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.min(failures, 30));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}
