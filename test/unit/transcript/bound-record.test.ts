import assert from 'node:assert/strict';
import { test } from 'node:test';
import { boundRecord, TRUNCATED_KEY } from '../../../src/transcript/bound-record.js';
import { MAX_RECORD_BYTES, RECORD_PREVIEW_CHARS } from '../../../src/transcript/limits.js';
import type { NewTranscriptRecord } from '../../../src/transcript/records.js';

const record = (data: Record<string, unknown>): NewTranscriptRecord => ({ sessionId: 's', recordId: 'r', kind: 'tool_result', promptId: 'p', at: 1, data });

test('a record within the bound is stored as it is, with nothing beside it', () => {
  const r = record({ toolCallId: 'c', status: 'completed', content: [{ type: 'content', content: { type: 'text', text: 'x'.repeat(1000) } }] });
  assert.equal(boundRecord(r), r);
});

test('a record over the bound keeps a preview with its identity and a marker, and carries the whole data beside it', () => {
  const text = 'é'.repeat(60_000); // 120,000 bytes in 60,000 characters
  const data = { toolCallId: 'c', status: 'completed', content: [{ type: 'content', content: { type: 'text', text } }], rawOutput: { text } };
  const bounded = boundRecord(record(data));
  const stored = JSON.stringify(bounded.data);
  assert.ok(Buffer.byteLength(stored) <= MAX_RECORD_BYTES, `${Buffer.byteLength(stored)} bytes stored`);
  assert.deepEqual([bounded.data.toolCallId, bounded.data.status], ['c', 'completed']);
  assert.deepEqual(bounded.data[TRUNCATED_KEY], { bytes: Buffer.byteLength(JSON.stringify(data)) });
  const preview = (bounded.data.content as any)[0].content.text as string;
  assert.ok(preview.startsWith('é'.repeat(RECORD_PREVIEW_CHARS)));
  assert.match(preview, /\[55904 more characters in the full record\]$/);
  assert.deepEqual(JSON.parse(bounded.overflow!), data, 'nothing is lost');
});

test('a record too big even with its strings cut keeps only the fields that identify it', () => {
  const data = { toolCallId: 'c', status: 'failed', content: Array.from({ length: 5_000 }, (_, i) => ({ type: 'content', content: { type: 'text', text: `line ${i}` } })) };
  const bounded = boundRecord(record(data));
  assert.ok(Buffer.byteLength(JSON.stringify(bounded.data)) <= MAX_RECORD_BYTES);
  assert.deepEqual(Object.keys(bounded.data).sort(), ['_truncated', 'status', 'toolCallId']);
  assert.deepEqual(JSON.parse(bounded.overflow!), data);
});
