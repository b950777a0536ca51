import { MAX_RECORD_BYTES, RECORD_PREVIEW_CHARS } from './limits.js';
import type { NewTranscriptRecord } from './records.js';

/** The key of a preview's marker: how big the whole record was, and that it is kept (docs/client-api.md §10.1). */
export const TRUNCATED_KEY = '_truncated';

/** Fields that name what a record is about; a preview keeps them whatever it cuts. */
const IDENTITY = ['toolCallId', 'status', 'requestId', 'name', 'title', 'kind', 'stopReason', 'modelId', 'interrupted', 'started'];

type Data = Record<string, unknown>;

/** A string cut to `chars`, saying how much was left out; other values pass through, arrays and objects walked. */
function cut(value: unknown, chars: number, depth = 0): unknown {
  if (typeof value === 'string') {
    if (value.length <= chars) return value;
    return `${value.slice(0, chars)}… [${value.length - chars} more characters in the full record]`;
  }
  if (depth > 64 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => cut(v, chars, depth + 1));
  const out: Data = {};
  for (const [k, v] of Object.entries(value)) out[k] = cut(v, chars, depth + 1);
  return out;
}

/**
 * A record as the transcript stores it: unchanged when its data fits
 * MAX_RECORD_BYTES; otherwise a preview (long strings cut, and if that is not
 * enough only the fields that identify it) marked `_truncated`, with the
 * whole data carried as `overflow` for the store to keep beside it. Nothing
 * is refused and nothing is lost: pages, loads and the model's history see the
 * preview, the export reads the whole record back.
 */
export function boundRecord(record: NewTranscriptRecord): NewTranscriptRecord {
  const full = JSON.stringify(record.data);
  if (full.length <= MAX_RECORD_BYTES / 4 || Buffer.byteLength(full) <= MAX_RECORD_BYTES) return record;
  const marker = { [TRUNCATED_KEY]: { bytes: Buffer.byteLength(full) } };
  let preview = { ...(cut(record.data, RECORD_PREVIEW_CHARS) as Data), ...marker };
  if (Buffer.byteLength(JSON.stringify(preview)) > MAX_RECORD_BYTES) {
    const kept: Data = {};
    for (const k of IDENTITY) if (k in record.data) kept[k] = cut(record.data[k], 256);
    preview = { ...kept, ...marker };
  }
  return { ...record, data: preview, overflow: full };
}
