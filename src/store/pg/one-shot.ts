import pg from 'pg';
import { splitLiterals } from './dialect.js';

/**
 * A write with its transaction around it as one simple query: one round trip for BEGIN, the lease
 * check, the statement and COMMIT (docs/store.md, Round trips). The simple protocol carries no
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
