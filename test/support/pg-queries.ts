import pg from 'pg';

/** How many queries `work` sends on any pg client of this process (its round trips to PostgreSQL). */
export async function queriesOf<T>(work: () => Promise<T>): Promise<{ count: number; result: T }> {
  const { sent, result } = await statementsOf(work);
  return { count: sent.length, result };
}

/** The statements of each query `work` sends on any pg client of this process: a pipeline's (`StatementsQuery`) one by one. */
export async function statementsOf<T>(work: () => Promise<T>): Promise<{ sent: string[][]; result: T }> {
  const original = pg.Client.prototype.query;
  const sent: string[][] = [];
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const query = args[0] as { bound?: readonly { text: string }[]; text?: string } | string;
    if (typeof query === 'string') sent.push([query]);
    else sent.push(query.bound ? query.bound.map((b) => b.text) : [query.text ?? '']);
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  try {
    const result = await work();
    return { sent, result };
  } finally {
    pg.Client.prototype.query = original;
  }
}
