import { open } from 'node:fs/promises';

/** A table read page by page: each `next()` answers the next page, or null at its end. */
export interface TablePages {
  next(): Promise<string | null>;
  close(): Promise<void>;
}

/** Opens one read of the table from its start. */
export type OpenTable = () => Promise<TablePages>;

/** A lookup waiting for the row that contains `key`. */
interface Wanted {
  readonly key: string;
  readonly resolve: (row: string | null) => void;
  readonly reject: (err: unknown) => void;
}

/** One page as the kernel hands it out from `/proc/net/tcp` (a seq_file answers at most a page per read). */
const PAGE_BYTES = 4096;

/**
 * Finds rows of a kernel socket table (`/proc/net/tcp{,6}`) by a key they contain, sharing reads
 * between lookups and stopping as soon as every lookup has its row.
 *
 * Why: the kernel walks its whole TCP hash (262,144 buckets on a 24 GiB machine, however few
 * sockets there are) over a full read, and each page read costs a share of that walk: read to
 * the end, the table cost 4.5 ms of system time per lookup here; the row of a live connection is
 * on average halfway, and the final read that only finds the end costs about half the walk alone.
 *
 * A lookup that arrives while a read is running joins it: its row may still come. It may also
 * have been in a page already passed, so one not found by the end is looked up again in a new
 * read from the start. A lookup present from a read's start and not found by its end has no row.
 */
export class SocketTable {
  private running = false;
  /** Lookups the running read has seen since its first page. */
  private fromStart: Wanted[] = [];
  /** Lookups that joined the running read after its first page. */
  private joined: Wanted[] = [];

  constructor(private readonly openTable: OpenTable) {}

  /** The row containing `key`, or null when the table has none. */
  find(key: string): Promise<string | null> {
    return new Promise((resolve, reject) => {
      const wanted = { key, resolve, reject };
      if (this.running) this.joined.push(wanted);
      else {
        this.fromStart.push(wanted);
        void this.scan();
      }
    });
  }

  private async scan(): Promise<void> {
    this.running = true;
    let pages: TablePages | undefined;
    try {
      pages = await this.openTable();
      let carried = '';
      for (let page = await pages.next(); page !== null; page = await pages.next()) {
        // A page ends on a row boundary, but nothing depends on it: a partial last row waits for the rest.
        const text = carried + page;
        const cut = text.lastIndexOf('\n') + 1;
        carried = text.slice(cut);
        this.answerFrom(text.slice(0, cut));
        if (this.fromStart.length === 0 && this.joined.length === 0) return;
      }
      this.answerFrom(carried);
      for (const w of this.fromStart) w.resolve(null);
      this.fromStart = [];
    } catch (err) {
      for (const w of [...this.fromStart, ...this.joined]) w.reject(err);
      this.fromStart = [];
      this.joined = [];
    } finally {
      await pages?.close().catch(() => undefined);
      this.running = false;
      this.rescanJoined();
    }
  }

  /** Answers every waiting lookup whose key is in `rows`. */
  private answerFrom(rows: string): void {
    if (rows === '') return;
    const keep = (w: Wanted): boolean => {
      const at = rows.indexOf(w.key);
      if (at < 0) return true;
      const start = rows.lastIndexOf('\n', at) + 1;
      const end = rows.indexOf('\n', at);
      w.resolve(rows.slice(start, end < 0 ? undefined : end));
      return false;
    };
    this.fromStart = this.fromStart.filter(keep);
    this.joined = this.joined.filter(keep);
  }

  /** The lookups that joined too late to be sure: a read of their own, from the start. */
  private rescanJoined(): void {
    if (this.joined.length === 0) return;
    this.fromStart = this.joined;
    this.joined = [];
    void this.scan();
  }
}

/** A `/proc` table opened for reading page by page. */
export function procTable(path: string): OpenTable {
  return async () => {
    const handle = await open(path, 'r');
    const buffer = Buffer.allocUnsafe(PAGE_BYTES * 2);
    return {
      async next() {
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
        return bytesRead === 0 ? null : buffer.toString('latin1', 0, bytesRead);
      },
      close: () => handle.close(),
    };
  };
}
