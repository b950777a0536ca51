import type { Async } from '../async.js';
import type { SqliteModuleTabRepository } from '../repos/module-tabs.js';
import type { PgDb, Queryer } from './db.js';
import { TAKEN_TOKEN, takingLease } from './one-shot.js';

type Tab = { tab: number; workspaceId: string };

const findTab = async (q: Queryer, sessionId: string): Promise<Tab | undefined> =>
  (await q.rows<Tab>('SELECT tab, workspace_id AS "workspaceId" FROM module_tabs WHERE session_id = $1', [sessionId]))[0];

/**
 * The session's ($1) tab if it has one, else the next number of its workspace's ($2) counter
 * (migration 17), inserted with the time `at`. The counter's row lock orders the creates of one
 * workspace, on any node, until their commit; creates in other workspaces do not wait. `counted`
 * runs only when `found` has no row (it reads it), so a session asking again takes no number;
 * `also` adds a condition of its own (`EXISTS (…)`).
 */
const assigning = (at: string, also = ''): string => `found AS (SELECT tab FROM module_tabs WHERE session_id = $1),
  counted AS (
    INSERT INTO module_tab_counters AS c (workspace_id, last_tab) SELECT $2, 1 WHERE NOT EXISTS (SELECT 1 FROM found)${also}
    ON CONFLICT (workspace_id) DO UPDATE SET last_tab = c.last_tab + 1
    RETURNING last_tab
  ),
  added AS (
    INSERT INTO module_tabs (session_id, workspace_id, tab, created_at)
    SELECT $1, $2, last_tab, ${at} FROM counted
    RETURNING tab
  )`;

/** The tab `assigning` found or gave. */
const TAB = 'SELECT tab FROM found UNION ALL SELECT tab FROM added';

/** The session's tab, given on first ask: one statement. Parameters: session id, workspace id, time. */
export const ASSIGN_TAB = `WITH ${assigning('$3')} ${TAB}`;

/**
 * `insert`, a new session's row ($1 its id, $2 its workspace), and its tab given at the time `at`,
 * in one statement. The row is a data-modifying CTE nobody reads: it runs all the same, once, and
 * the tab row's foreign key is checked at the statement's end, when the session row is there. The
 * row refused (its id taken) fails the statement: the number is not taken.
 */
export const withTab = (insert: string, at: string): string => `WITH created AS (${insert}), ${assigning(at)} ${TAB}`;

/**
 * `withTab` as the session's first write on a cluster node, taking its new lease too
 * (`Statement.leased`; `node` and `leaseMs` name their parameters): `insertIfTaken` inserts its row
 * `FROM taken`, so a lease refused writes no row and takes no number, and the query fails as a
 * refused acquire does. One statement where the acquire was one more.
 */
export const withTabAndLease = (insertIfTaken: string, at: string, node: string, leaseMs: string): string =>
  `WITH ${takingLease('$1', node, leaseMs)}, created AS (${insertIfTaken}), ${assigning(at, ' AND EXISTS (SELECT 1 FROM taken)')}
  SELECT given.tab, lease.token FROM (${TAKEN_TOKEN}) AS lease LEFT JOIN (${TAB}) AS given ON true`;

/** Sessions this process gave their tab number with their row, until it asks for that number. */
const UNCLAIMED_LIMIT = 1024;

/**
 * Tab numbers handed out in the transaction of a new session's row (`PgSessionRepository`), so
 * that the daemon opening the session as a tab gets its number without a round trip of its own,
 * awaited after the row's. Kept only until asked for; a session never opened (its creation
 * failed after the row) is forgotten once many others are waiting.
 */
export class TabsWithRows {
  private readonly given = new Map<string, Tab>();

  gave(sessionId: string, tab: Tab): void {
    this.given.set(sessionId, tab);
    if (this.given.size > UNCLAIMED_LIMIT) this.given.delete(this.given.keys().next().value!);
  }

  /** The number given with the session's row in this workspace, once. */
  take(sessionId: string, workspaceId: string): number | undefined {
    const tab = this.given.get(sessionId);
    if (tab === undefined || tab.workspaceId !== workspaceId) return undefined;
    this.given.delete(sessionId);
    return tab.tab;
  }
}

/** Tab numbers and module-token hashes in PostgreSQL. */
export class PgModuleTabRepository implements Async<SqliteModuleTabRepository> {
  constructor(
    private readonly db: PgDb,
    /** Numbers the session rows' writes gave (a daemon whose every session is a tab); none in the repository suite. */
    private readonly withRows?: TabsWithRows,
  ) {}

  find(sessionId: string): Promise<Tab | undefined> {
    return this.db.unit((q) => findTab(q, sessionId));
  }

  /** The session's tab, given the next number of its workspace on first ask. */
  assign(sessionId: string, workspaceId: string, now: number): Promise<number> {
    const given = this.withRows?.take(sessionId, workspaceId);
    if (given !== undefined) return Promise.resolve(given);
    return this.db.for(sessionId).rows<{ tab: number }>(ASSIGN_TAB, [sessionId, workspaceId, now]).then(([row]) => row!.tab);
  }

  async sessionsForToken(hash: string): Promise<string[]> {
    const rows = await this.db.rows<{ session_id: string }>('SELECT session_id FROM module_tokens WHERE hash = $1 ORDER BY session_id COLLATE "C"', [hash]);
    return rows.map((r) => r.session_id);
  }

  async hasToken(sessionId: string): Promise<boolean> {
    return (await this.db.rows('SELECT 1 FROM module_tokens WHERE session_id = $1 LIMIT 1', [sessionId])).length > 0;
  }

  /** A module token is given by the node that serves it, for sessions of any node: not a session's write. */
  async addToken(hash: string, sessionId: string, now: number): Promise<void> {
    await this.db.nodeWide.run('INSERT INTO module_tokens (hash, session_id, created_at) VALUES ($1, $2, $3)', [hash, sessionId, now]);
  }

  replaceTokens(hash: string, sessionIds: readonly string[], now: number): Promise<void> {
    return this.db.nodeWide.transaction(async (q) => {
      for (const id of sessionIds) await q.run('DELETE FROM module_tokens WHERE session_id = $1', [id]);
      for (const id of sessionIds) await q.run('INSERT INTO module_tokens (hash, session_id, created_at) VALUES ($1, $2, $3)', [hash, id, now]);
    });
  }
}
