import type { Statement } from './pipeline.js';
import type { Queryer } from './queryer.js';
import type { WriteFence } from './write-fence.js';

/** The node's own writes, made for no session (`PgDb.nodeWide`). */
export const NODE = Symbol('node');

/**
 * Whom a write is made for (docs/cluster-leases.md, Fencing): a session, named by its id, whose
 * lease fences the write; the node itself; or nobody named (a `PgDb` not bound by `for` or `nodeWide`).
 */
export type Writer = string | typeof NODE | undefined;

/**
 * The tables whose rows a session's run writes. In cluster mode a write that names nobody and
 * touches one of them is refused: left unfenced, a node that lost the session could still write it.
 */
const SESSION_TABLES =
  /\b(sessions|transcript|transcript_overflow|prompts|permission_grants|checkpoint_blobs|checkpoint_effects|module_tabs|module_tokens|module_inbox|module_inbox_waiting|receipts|gateway_calls)\b/i;
/** A statement that only reads needs no fence (a read of a stale owner harms nobody). */
export const READ_ONLY = /^\s*SELECT\b/i;

/** A write to a session's table that named no session in cluster mode: a bug of its caller, refused before it runs. */
export class UnnamedWriteError extends Error {
  override name = 'UnnamedWriteError';
  constructor(sql: string) {
    super(`A cluster node's write to a session's table names its session (PgDb.for) or the node (PgDb.nodeWide): ${sql.slice(0, 80)}`);
  }
}

/** Cluster mode's fences: each write's from the session it names, looked up when the write is made. */
export class Fencing {
  /** Whether a statement text writes a session's table, decided once per text. */
  private readonly touching = new Map<string, boolean>();

  constructor(private readonly fenceOf: (sessionId: string) => WriteFence) {}

  /** The fence of what `writer` writes: its session's, none for the node or nobody. */
  of(writer: Writer): WriteFence | undefined {
    return typeof writer === 'string' ? this.fenceOf(writer) : undefined;
  }

  /** Why `statements` may not be written: they name nobody and touch a session's table. */
  refuses(writer: Writer, statements: readonly Statement[]): UnnamedWriteError | undefined {
    if (writer !== undefined) return undefined;
    for (const s of statements) if (this.touches(s.sql)) return new UnnamedWriteError(s.sql);
    return undefined;
  }

  /** The Queryer a unit naming nobody runs on: each statement checked as it is made. */
  guarded(q: Queryer): Queryer {
    return {
      rows: (sql, params) => this.checked(sql, () => q.rows(sql, params)),
      run: (sql, params) => this.checked(sql, () => q.run(sql, params)),
      script: (sql) => this.checked(sql, () => q.script(sql)),
    };
  }

  private touches(sql: string): boolean {
    let touches = this.touching.get(sql);
    if (touches === undefined) this.touching.set(sql, (touches = !READ_ONLY.test(sql) && SESSION_TABLES.test(sql)));
    return touches;
  }

  private checked<T>(sql: string, run: () => Promise<T>): Promise<T> {
    return this.touches(sql) ? Promise.reject(new UnnamedWriteError(sql)) : run();
  }
}
