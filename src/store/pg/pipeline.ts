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

/** The columns of a statement's rows, as PostgreSQL described them (a RowDescription's fields). */
type Shape = readonly unknown[];

/**
 * Each connection's prepared statements' row shapes, once described: a prepared statement's rows
 * keep their columns, so later executions skip the Describe and PostgreSQL its RowDescription.
 * Keyed by pg's connection object: a new connection after a drop starts with none.
 */
const shapes = new WeakMap<Wire, Map<string, Shape>>();

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
  /** The connection's known row shapes; the statements sent without a Describe are those whose shape it had. */
  private known: Map<string, Shape> | undefined;
  private undescribed: readonly boolean[] = [];
  /** The statement whose answers arrive now: every statement's end is its CommandComplete. */
  private current = 0;
  private shaped = -1;

  constructor(statements: readonly Statement[], nameOf: (text: string) => string) {
    let settle!: (err: Error | undefined, result: unknown) => void;
    const answers = new Promise<pg.QueryResult[]>((resolve, reject) => {
      settle = (err, result) => (err ? reject(err) : resolve([result as pg.QueryResult | pg.QueryResult[]].flat()));
    });
    // A text for pg's checks before it submits; never sent. A string, which pg takes without copying a config.
    super(`${statements.length} statements`, (err, result) => settle(err, result));
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
    let known = shapes.get(wire);
    if (!known) shapes.set(wire, (known = new Map()));
    this.known = known;
    this.undescribed = this.bound.map((b) => known.has(b.name));
    for (const [i, b] of this.bound.entries()) {
      wire.bind({ statement: b.name, values: b.values });
      if (!this.undescribed[i]) wire.describe({ type: 'P', name: '' });
      wire.execute({ portal: '' });
    }
    wire.sync();
  }

  handleRowDescription(msg: { fields: Shape }): void {
    this.shaped = this.current;
    const b = this.bound[this.current];
    if (b && !this.undescribed[this.current]) this.known?.set(b.name, msg.fields);
    (pg.Query.prototype as unknown as { handleRowDescription(m: unknown): void }).handleRowDescription.call(this, msg);
  }

  /** A statement sent without its Describe gets the shape it had, before its first row. */
  handleDataRow(msg: unknown): void {
    if (this.shaped !== this.current) this.handleRowDescription({ fields: this.known!.get(this.bound[this.current]!.name)! });
    (pg.Query.prototype as unknown as { handleDataRow(m: unknown): void }).handleDataRow.call(this, msg);
  }

  handleCommandComplete(msg: unknown, connection: unknown): void {
    // Described and answered NoData: it has no rows, and no RowDescription to come.
    const b = this.bound[this.current];
    if (b && this.shaped !== this.current && !this.undescribed[this.current]) this.known?.set(b.name, []);
    this.current += 1;
    (pg.Query.prototype as unknown as { handleCommandComplete(m: unknown, c: unknown): void }).handleCommandComplete.call(this, msg, connection);
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
