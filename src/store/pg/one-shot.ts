import pg from 'pg';
import type { Queryer } from './db.js';
import type { WriteFence } from './write-fence.js';
import { splitLiterals } from './dialect.js';
import { ACQUIRE } from './leases.js';

/**
 * Fewer round trips per transaction (docs/store.md, Round trips): a single write with its
 * transaction around it is one simple query, BEGIN, the lease check, the statement and COMMIT;
 * a longer transaction sends its opening with its first statement. The simple protocol carries no
 * parameters, so the statement's values are written in as literals, each the very text the
 * extended protocol would send: an untyped quoted literal takes its type from where it stands,
 * as an untyped parameter does.
 */

/** What a refused lease check raises, so that the statements after it in the same query never run. */
const REFUSED_MARK = 'session_on_other_node';

/**
 * The lease check that fails the query when this node no longer holds the lease at `token`: the
 * count is data, so the cast of the mark to an integer can only fail when the query runs.
 */
export function fenceAssertText(sessionId: string, token: number, nodeId: string): string {
  if (!Number.isSafeInteger(token)) throw new TypeError(`a lease token is an integer, not ${token}`);
  return `SELECT (CASE WHEN count(*) = 0 THEN '${REFUSED_MARK}' ELSE '1' END)::int AS ok FROM (SELECT 1 FROM session_leases WHERE session_id = ${pg.escapeLiteral(sessionId)} AND token = ${token} AND node_id = ${pg.escapeLiteral(nodeId)} FOR SHARE) AS held`;
}

/**
 * A new session's lease taken in its first write's transaction: the token, or the query fails as a
 * refused lease check does when another node holds a valid lease on that id.
 */
export function acquireText(sessionId: string, nodeId: string, leaseMs: number): string {
  const insert = inlineParams(ACQUIRE, [sessionId, nodeId, leaseMs])!;
  return `WITH taken AS (${insert}) SELECT (CASE WHEN count(*) = 0 THEN '${REFUSED_MARK}' ELSE max(token)::text END)::bigint AS token FROM taken`;
}

/** Whether `err` is that lease check's failure (invalid integer input, naming the mark). */
export function isFenceRefusal(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  return e?.code === '22P02' && typeof e.message === 'string' && e.message.includes(REFUSED_MARK);
}

/** `sql` with `$n` written in as `params[n - 1]`; undefined when a value has no literal form here (the caller binds it instead). */
export function inlineParams(sql: string, params: readonly unknown[]): string | undefined {
  const literals: string[] = [];
  for (const value of params) {
    const literal = literalOf(value);
    if (literal === undefined) return undefined;
    literals.push(literal);
  }
  let missing = false;
  const text = splitLiterals(sql.trim().replace(/;+$/, ''))
    .map((part, i) =>
      i % 2 === 1
        ? part
        : part.replace(/\$(\d+)/g, (_, n: string) => {
            const literal = literals[Number(n) - 1];
            if (literal === undefined) missing = true;
            return literal ?? '';
          }),
    )
    .join('');
  return missing ? undefined : text;
}

/** The values the store's repositories bind, as pg would send them (text), quoted. */
function literalOf(value: unknown): string | undefined {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'string') return pg.escapeLiteral(value);
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return `'${String(value)}'`;
  if (Buffer.isBuffer(value)) return pg.escapeLiteral(`\\x${value.toString('hex')}`);
  if (Array.isArray(value) && value.every((v) => typeof v === 'string' || typeof v === 'number')) {
    return pg.escapeLiteral(`{${value.map((v) => `"${String(v).replace(/[\\"]/g, '\\$&')}"`).join(',')}}`);
  }
  return undefined;
}

/**
 * The Queryer a transaction's work gets: its first statement carries the transaction's opening
 * (BEGIN, the flush request, the lease check) ahead of it in one simple query, so a transaction
 * costs one round trip less. A statement whose values cannot be written in, or no statement at
 * all (`open`), sends the opening alone first. Scripts before the first statement join the opening.
 */
export class OpeningQueryer implements Queryer {
  private opening: string | undefined;

  /** The answers of the query that carried the opening (a new lease's token is among them). */
  openedWith: pg.QueryResult | pg.QueryResult[] | undefined;

  constructor(
    private readonly direct: Queryer,
    private readonly simple: (text: string) => Promise<pg.QueryResult | pg.QueryResult[]>,
    opening: readonly string[],
  ) {
    this.opening = opening.join(';\n');
  }

  async rows<R>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    const answer = await this.along(inlineParams(sql, params));
    return answer ? (answer.rows as R[]) : this.direct.rows<R>(sql, params);
  }

  async run(sql: string, params: readonly unknown[] = []): Promise<number> {
    const answer = await this.along(inlineParams(sql, params));
    return answer ? (answer.rowCount ?? 0) : this.direct.run(sql, params);
  }

  /** While the opening is pending, a script (a LOCK) joins it and goes with the next statement: it answers nothing. */
  async script(sql: string): Promise<void> {
    if (this.opening !== undefined) this.opening = `${this.opening};\n${sql}`;
    else await this.direct.script(sql);
  }

  /** Sends the opening if no statement has taken it along yet. */
  async open(): Promise<void> {
    await this.along(undefined);
  }

  /** The opening and `text` as one query, answering `text`'s result; undefined when the opening was sent already or alone. */
  private async along(text: string | undefined): Promise<pg.QueryResult | undefined> {
    const opening = this.opening;
    if (opening === undefined) return undefined;
    this.opening = undefined;
    if (text === undefined) {
      this.openedWith = await this.simple(opening);
      return undefined;
    }
    const answers = await this.simple(`${opening};\n${text}`);
    this.openedWith = answers;
    return Array.isArray(answers) ? answers.at(-1) : answers;
  }
}

/**
 * What a unit's transaction starts with, one simple query: BEGIN, the flush request, the lease
 * check, or the lease taken when the session is new (`leaseMs`), the opening's last statement.
 */
export function opening(fence: WriteFence | undefined, token: number | undefined, flush: boolean, leaseMs?: number): string[] {
  const statements = ['BEGIN'];
  if (flush) statements.push('SET LOCAL synchronous_commit = on');
  if (fence && leaseMs !== undefined) statements.push(acquireText(fence.sessionId, fence.nodeId, leaseMs));
  else if (fence) statements.push(fenceAssertText(fence.sessionId, token!, fence.nodeId));
  return statements;
}

/** The token a taken lease answered, from the answers of a query that began with `opening`. */
export function tokenTaken(answers: pg.QueryResult | pg.QueryResult[], openingLength: number): number {
  const taken = (answers as unknown as pg.QueryResult[])[openingLength - 1];
  return Number((taken?.rows[0] as { token?: unknown } | undefined)?.token);
}
