import { emptySummary, exportMeta, summarize, type ExportEntry } from './document.js';
import { ExportEntries } from './entries.js';
import { EXPORT_WRITERS, type ExportFormat } from './formats.js';
import type { ExportRecord, ExportSession } from './source.js';
import { TrailingSpace } from './writer.js';

/**
 * Records read from storage at a time, and text written before the event loop
 * is given back: a 382 MB transcript's JSON export, built whole, held the
 * loop 25–29 s and 2.7 GB (issue 16). Written this way it costs one batch of
 * records and one chunk of text at a time, and every other client is answered
 * between batches.
 */
export const EXPORT_BATCH_RECORDS = 64;
export const EXPORT_CHUNK_CHARS = 64 * 1024;

/** What a streamed export reads, a batch at a time (the transcript service gives it its repository). */
export interface ExportStore {
  readonly row: ExportSession;
  readonly cwd: string | null;
  readonly now: number;
  /** The last record position when the export began; records added later are not part of it. */
  readonly lastSeq: number;
  /** Records with seq in [fromSeq, toSeq), ascending, each with its seq. */
  range(fromSeq: number, toSeq: number): Promise<readonly (ExportRecord & { readonly seq: number })[]>;
  /** The whole data (JSON) of a record the transcript keeps as a preview (src/transcript/bound-record.ts). */
  overflowOf(recordId: string): Promise<string | undefined>;
}

const giveBack = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A record whose data the transcript holds as a preview, made whole again; unchanged otherwise. */
async function whole(store: ExportStore, r: ExportRecord): Promise<ExportRecord> {
  if (r.unreadable || r.data._truncated === undefined) return r;
  const text = await store.overflowOf(r.recordId);
  if (text === undefined) return r;
  try {
    const data: unknown = JSON.parse(text);
    return data !== null && typeof data === 'object' && !Array.isArray(data) ? { ...r, data: data as Record<string, unknown> } : r;
  } catch {
    return r;
  }
}

async function* batches(store: ExportStore): AsyncGenerator<readonly (ExportRecord & { readonly seq: number })[]> {
  for (let from = 1; from <= store.lastSeq; from += EXPORT_BATCH_RECORDS) {
    yield await store.range(from, Math.min(from + EXPORT_BATCH_RECORDS, store.lastSeq + 1));
    await giveBack();
  }
}

/**
 * The export as text chunks (docs/client-api.md §10.2). Two passes over the
 * records in batches: the first gathers the header's figures and where each
 * call's result and each request's decision are stored; the second writes
 * each entry as soon as it is complete — a call with its result read from
 * where the first pass found it — and forgets it. The output is the same as
 * `renderExport` over the whole document.
 */
export async function* exportChunks(store: ExportStore, format: ExportFormat): AsyncGenerator<string> {
  const sum = emptySummary();
  const completions = new Map<string, number>();
  for await (const batch of batches(store)) {
    for (const r of batch) {
      summarize(sum, r);
      if (r.unreadable) continue;
      if (r.kind === 'tool_result') completions.set(`tool:${String(r.data.toolCallId)}`, r.seq);
      if (r.kind === 'permission_outcome') completions.set(`permission:${String(r.data.requestId)}`, r.seq);
    }
  }
  const meta = exportMeta(store.row, store.cwd, store.now, sum);
  const { writer } = EXPORT_WRITERS[format];
  const trailing = writer.trimEnd ? new TrailingSpace() : null;
  let pending = '';
  let count = 0;
  const out = (text: string) => {
    pending += trailing ? trailing.push(text) : text;
  };

  out(writer.head(meta));
  const builder = new ExportEntries();
  for await (const batch of batches(store)) {
    for (const r of batch) {
      // A completion is applied with the entry it completes (below), not where it is stored.
      if (!r.unreadable && (r.kind === 'tool_result' || r.kind === 'permission_outcome')) continue;
      for (const e of builder.add(await whole(store, r))) {
        await complete(store, builder, e, r.seq, completions);
        out(writer.entry(e, count++, meta));
        builder.forget(e);
      }
      if (pending.length >= EXPORT_CHUNK_CHARS) {
        yield pending;
        pending = '';
        await giveBack();
      }
    }
    if (pending !== '') yield pending;
    pending = '';
  }
  out(writer.foot(meta, count));
  yield trailing ? `${pending}\n` : pending;
}

/** Reads the stored result of a call (or decision of a request) and applies it to its entry. */
async function complete(store: ExportStore, builder: ExportEntries, e: ExportEntry, at: number, completions: ReadonlyMap<string, number>): Promise<void> {
  const key = e.kind === 'tool' ? `tool:${e.toolCallId}` : e.kind === 'permission' ? `permission:${e.requestId}` : null;
  const seq = key === null ? undefined : completions.get(key);
  // As in the whole document: a completion stored before its entry completes nothing.
  if (seq === undefined || seq <= at) return;
  const [r] = await store.range(seq, seq + 1);
  if (r) builder.add(await whole(store, r));
}
