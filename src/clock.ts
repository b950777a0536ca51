/** Time is passed in, never read ad hoc, so rules and tests can hold it still. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
