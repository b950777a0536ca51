import { createRequire } from 'node:module';
import pg from 'pg';

/** One statement and the values bound to its `$n`. */
export interface Statement {
  readonly sql: string;
  readonly params: readonly unknown[];
  /**
   * The same write taking its session's (its $1) new lease too, when it is that session's first
   * (docs/cluster-leases.md): its parameters then `params`, the node id and the lease time; its
   * first row carries the lease's `token`, and it fails as a refused acquire does.
   */
  readonly leased?: string;
}

/** pg's own mapping of a JS value to what the wire carries, so a statement here binds exactly as `client.query` would. */
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as { prepareValue(value: unknown): unknown };

/** The messages of pg's connection a pipeline sends (pg's own Query sends them the same way). */
interface Wire {
  readonly parsedStatements: Record<string, string>;
  parse(message: { name: string; text: string }): void;
  bind(message: { statement: string; values: unknown[] }): void;
  describe(message: { type: 'P'; name: string }): void;
  execute(message: { portal: string }): void;
  sync(): void;
  on(event: 'parseComplete', listener: () => void): void;
  off(event: 'parseComplete', listener: () => void): void;
}

interface Bound {
  readonly name: string;
  readonly text: string;
  readonly values: unknown[];
}

/**
 * Several statements sent as one round trip (docs/store.md, Round trips): each a named prepared
 * statement of the connection, parsed and planned by PostgreSQL on its first use only, then
 * bound and executed, all behind one Sync. PostgreSQL runs them in order and answers each; the
 * first that fails fails the query and the ones after it never run. pg's Query gathers the
 * answers, one result per statement, as it does for a simple query of several statements.
 */
export class StatementsQuery extends pg.Query {
  /** One result per statement, in order; rejected with the first statement's error. */
  readonly answers: Promise<pg.QueryResult[]>;
  private readonly bound: readonly Bound[];
  private parsing: { wire: Wire; listener: () => void } | undefined;

  constructor(statements: readonly Statement[], nameOf: (text: string) => string) {
    let settle!: (err: Error | undefined, result: unknown) => void;
    const answers = new Promise<pg.QueryResult[]>((resolve, reject) => {
      settle = (err, result) => (err ? reject(err) : resolve([result as pg.QueryResult | pg.QueryResult[]].flat()));
    });
    // A text for pg's checks before it submits; never sent.
    super({ text: `${statements.length} statements` }, (err, result) => settle(err, result));
    this.answers = answers;
    // Mapped now: a value pg cannot send fails the call before anything is on the wire.
    this.bound = statements.map((s) => ({ name: nameOf(s.sql), text: s.sql, values: s.params.map(prepareValue) }));
  }

  /** pg's Query.submit corks the socket around this: the whole pipeline leaves in one write. */
  requiresPreparation(): boolean {
    return true;
  }

  prepare(connection: unknown): void {
    const wire = connection as Wire;
    // Every Parse goes first: one that fails does before any statement ran, and an execution's
    // failure comes after every Parse completed, so the names the connection knows are exact.
    const unparsed = [...new Map(this.bound.filter((b) => wire.parsedStatements[b.name] === undefined).map((b) => [b.name, b])).values()];
    if (unparsed.length > 0) {
      const listener = () => {
        const parsed = unparsed.shift();
        if (parsed) wire.parsedStatements[parsed.name] = parsed.text;
      };
      wire.on('parseComplete', listener);
      this.parsing = { wire, listener };
      for (const b of unparsed) wire.parse({ name: b.name, text: b.text });
    }
    for (const b of this.bound) {
      wire.bind({ statement: b.name, values: b.values });
      wire.describe({ type: 'P', name: '' });
      wire.execute({ portal: '' });
    }
    wire.sync();
  }

  handleError(err: unknown, connection: unknown): void {
    this.stopParsing();
    (pg.Query.prototype as unknown as { handleError(e: unknown, c: unknown): void }).handleError.call(this, err, connection);
  }

  handleReadyForQuery(connection: unknown): void {
    this.stopParsing();
    (pg.Query.prototype as unknown as { handleReadyForQuery(c: unknown): void }).handleReadyForQuery.call(this, connection);
  }

  private stopParsing(): void {
    if (!this.parsing) return;
    this.parsing.wire.off('parseComplete', this.parsing.listener);
    this.parsing = undefined;
  }
}
