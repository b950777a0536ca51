import pg from 'pg';

/** How many queries `work` sends on any pg client of this process (its round trips to PostgreSQL). */
export async function queriesOf<T>(work: () => Promise<T>): Promise<{ count: number; result: T }> {
  const original = pg.Client.prototype.query;
  let count = 0;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    count++;
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  try {
    const result = await work();
    return { count, result };
  } finally {
    pg.Client.prototype.query = original;
  }
}
