import type pg from 'pg';
import type { Queryer } from './db.js';
import type { WriteFence } from './write-fence.js';
import type { Statement } from './pipeline.js';
import { acquiring } from './leases.js';

/**
 * Fewer round trips per transaction (docs/store.md, Round trips): a single write with its
 * transaction around it is one pipeline (`PgLink.pipeline`), BEGIN, the lease check, the statement
 * and COMMIT; a longer transaction sends its opening with its first statement. Every statement is
 * a prepared statement of the connection with its values bound: PostgreSQL parses and plans it
 * once per connection, not once per transaction.
 */

/** What a refused lease check raises, so that the statements after it in the same query never run. */
const REFUSED_MARK = 'session_on_other_node';

/**
 * The lease check that fails the query when this node no longer holds the lease at the token
 * ($2): the count is data, so the cast of the mark to an integer can only fail when it runs.
 */
const FENCE_CHECK = `SELECT (CASE WHEN count(*) = 0 THEN '${REFUSED_MARK}' ELSE '1' END)::int AS ok FROM (SELECT 1 FROM session_leases WHERE session_id = $1 AND token = $2 AND node_id = $3 FOR SHARE) AS held`;

/**
 * A new session's lease taken in a CTE `taken` (`session`, `node`, `leaseMs`: the parameters naming
 * them); `TAKEN_TOKEN` then answers its token, or fails the query as a refused lease check does
 * when another node holds a valid lease on that id.
 */
export const takingLease = (session: string, node: string, leaseMs: string): string => `taken AS (${acquiring(session, node, leaseMs)})`;

/** One row whatever `taken` holds, so the cast runs even when the acquire returned nothing. */
export const TAKEN_TOKEN = `SELECT (CASE WHEN count(*) = 0 THEN '${REFUSED_MARK}' ELSE max(token)::text END)::bigint AS token FROM taken`;

/** A new session's lease taken in its first write's transaction, by a statement of its own. */
const ACQUIRE_CHECK = `WITH ${takingLease('$1', '$2', '$3')} ${TAKEN_TOKEN}`;

/** The lease check of `sessionId` at `token`, held by `nodeId`. */
export function fenceCheck(sessionId: string, token: number, nodeId: string): Statement {
  return { sql: FENCE_CHECK, params: [sessionId, token, nodeId] };
}

/** The new session's lease taken for `nodeId` for `leaseMs`, answering its token. */
export function acquireCheck(sessionId: string, nodeId: string, leaseMs: number): Statement {
  return { sql: ACQUIRE_CHECK, params: [sessionId, nodeId, leaseMs] };
}

/** Whether `err` is that lease check's failure (invalid integer input, naming the mark). */
export function isFenceRefusal(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  return e?.code === '22P02' && typeof e.message === 'string' && e.message.includes(REFUSED_MARK);
}

/**
 * The Queryer a transaction's work gets: its first statement carries the transaction's opening
 * (BEGIN, the flush request, the lease check) ahead of it in one pipeline, so a transaction
 * costs one round trip less. No statement at all (`open`), or a script first, sends the opening
 * alone.
 */
export class OpeningQueryer implements Queryer {
  private opening: readonly Statement[] | undefined;

  /** The answers of the query that carried the opening (a new lease's token is among them). */
  openedWith: pg.QueryResult[] | undefined;

  constructor(
    private readonly direct: Queryer,
    private readonly pipeline: (statements: readonly Statement[]) => Promise<pg.QueryResult[]>,
    opening: readonly Statement[],
  ) {
    this.opening = opening;
  }

  async rows<R>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    const answer = await this.along({ sql, params });
    return answer ? (answer.rows as R[]) : this.direct.rows<R>(sql, params);
  }

  async run(sql: string, params: readonly unknown[] = []): Promise<number> {
    const answer = await this.along({ sql, params });
    return answer ? (answer.rowCount ?? 0) : this.direct.run(sql, params);
  }

  /** A script may hold several statements, which no prepared statement can: it goes as a simple query after the opening. */
  async script(sql: string): Promise<void> {
    await this.open();
    await this.direct.script(sql);
  }

  /** Sends the opening if no statement has taken it along yet. */
  async open(): Promise<void> {
    await this.along(undefined);
  }

  /** The opening and `statement` as one pipeline, answering the statement's result; undefined when the opening was sent already or alone. */
  private async along(statement: Statement | undefined): Promise<pg.QueryResult | undefined> {
    const opening = this.opening;
    if (opening === undefined) return undefined;
    this.opening = undefined;
    const answers = await this.pipeline(statement ? [...opening, statement] : opening);
    this.openedWith = answers;
    return statement && answers.at(-1);
  }
}

/** The fence's lease check at `token`, or the new session's lease taken (`leaseMs`); none unfenced. */
export function leaseCheck(fence: WriteFence | undefined, token: number | undefined, leaseMs?: number): Statement[] {
  if (fence && leaseMs !== undefined) return [acquireCheck(fence.sessionId, fence.nodeId, leaseMs)];
  if (fence) return [fenceCheck(fence.sessionId, token!, fence.nodeId)];
  return [];
}

/**
 * A write's statements behind its lease check, or taking the new session's lease (`leaseMs`): by
 * their first statement itself when it can (`Statement.leased`), one statement fewer, else by the
 * acquire ahead of them. `takenAt`: which answer carries the taken lease's token.
 */
export function fenced(
  fence: WriteFence | undefined,
  token: number | undefined,
  leaseMs: number | undefined,
  statements: readonly Statement[],
): { statements: Statement[]; takenAt: number | undefined } {
  const [first, ...rest] = statements;
  if (fence && leaseMs !== undefined && first?.leased !== undefined) {
    return { statements: [{ sql: first.leased, params: [...first.params, fence.nodeId, leaseMs] }, ...rest], takenAt: 0 };
  }
  const check = leaseCheck(fence, token, leaseMs);
  return { statements: [...check, ...statements], takenAt: leaseMs === undefined ? undefined : 0 };
}

/**
 * What a unit's transaction starts with, sent in one round trip: BEGIN, the flush request, the lease
 * check, or the lease taken when the session is new (`leaseMs`), the opening's last statement.
 */
export function opening(fence: WriteFence | undefined, token: number | undefined, flush: boolean, leaseMs?: number): Statement[] {
  return [BEGIN, ...(flush ? [FLUSH] : []), ...leaseCheck(fence, token, leaseMs)];
}

/**
 * A transaction sent whole, as one pipeline. Its one Sync ends it: PostgreSQL runs the statements
 * before a Sync in one implicit transaction, commits it at the Sync, or rolls it all back when a
 * statement failed and skips the ones after it (the protocol's Pipelining). BEGIN and COMMIT are
 * sent only around the flush request, which `SET LOCAL` makes inside a transaction block.
 * `offset`: where the statements' answers start among the pipeline's.
 */
export function whole(statements: readonly Statement[], flush: boolean): { sent: Statement[]; offset: number } {
  return flush ? { sent: [BEGIN, FLUSH, ...statements, COMMIT], offset: 2 } : { sent: [...statements], offset: 0 };
}

export const BEGIN: Statement = { sql: 'BEGIN', params: [] };
export const COMMIT: Statement = { sql: 'COMMIT', params: [] };
/** A promised write's commit waits for its WAL flush even where ordinary commits do not (docs/store.md, Commits). */
export const FLUSH: Statement = { sql: 'SET LOCAL synchronous_commit = on', params: [] };

/** The token a taken lease answered, from the answers of its query: `at`, the one that took it. */
export function tokenTaken(answers: readonly pg.QueryResult[], at: number): number {
  return Number((answers[at]?.rows[0] as { token?: unknown } | undefined)?.token);
}
