import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { MAX_RECORD_BYTES } from '../../src/transcript/limits.js';
import { assertHealthy, watchHealth } from '../support/health-watch.js';
import { EventReader, newSession, submit } from '../support/session-client.js';
import { startStack, type Stack } from '../support/stack.js';
import { sqliteDb } from '../support/daemon.js';

/**
 * Issue 16 finding 8, scaled down: one answer issuing 1,500 large reads made a
 * 382 MB transcript, and its JSON export stalled the daemon 25–29 s at 2.7 GB.
 * Here one answer makes READS reads of a 120 KiB file. Each result is stored
 * as a bounded preview with the whole record kept beside it; the transcript
 * says so; the export, streamed, carries every result whole; and /health stays
 * prompt while several exports of the session are read at once.
 */
const READS = 60;
const FILE = `${'0123456789abcdef'.repeat(7_680)}\n`; // 122,881 bytes, under the 128 KiB read window

let stack: Stack;
let sessionId: string;
before(async () => {
  stack = await startStack({ files: { 'big.txt': FILE } });
  ({ sessionId } = await newSession(stack.daemon, { approvalMode: 'yolo' }));
  const calls = Array.from({ length: READS }, (_, i) => ({ id: `read_${i}`, name: 'workspace_read', arguments: { path: 'big.txt' } }));
  stack.model.enqueue({ kind: 'reply', toolCalls: calls }, { kind: 'reply', text: 'read them all' });
  const events = await EventReader.open(stack.daemon, sessionId);
  const submitted = await submit(stack.daemon, sessionId, 'read it many times');
  assert.equal(submitted.status, 202);
  const terminal = await events.terminal(submitted.body.promptId);
  events.close();
  assert.equal(terminal.type, 'turn_complete', JSON.stringify(terminal));
});
after(() => stack.close());

test('every stored transcript record is within the bound, the overflow kept beside it', () => {
  const db = sqliteDb(stack.daemon.daemon);
  const rows = db.prepare('SELECT kind, length(CAST(data AS BLOB)) AS bytes FROM transcript WHERE session_id = ?').all(sessionId) as { kind: string; bytes: number }[];
  const largest = Math.max(...rows.map((r) => r.bytes));
  assert.ok(largest <= MAX_RECORD_BYTES, `largest record ${largest} bytes`);
  const kept = db.prepare('SELECT count(*) AS n, sum(length(CAST(data AS BLOB))) AS bytes FROM transcript_overflow WHERE session_id = ?').get(sessionId) as { n: number; bytes: number };
  assert.equal(kept.n, READS, 'each large result is kept whole');
  const stored = rows.reduce((n, r) => n + r.bytes, 0);
  console.log(`# large transcript: ${READS} reads, ${rows.length} records, ${(stored / 1024).toFixed(0)} KiB in the transcript, ${(kept.bytes / 1024 / 1024).toFixed(1)} MiB kept beside it`);
});

test('a transcript page shows each large result as a preview that says how big the whole record is', async () => {
  const page = await stack.daemon.json('GET', `/session/${sessionId}/transcript?limit=500`);
  assert.equal(page.status, 200);
  const results = page.body.events.filter((e: any) => e.data?.sessionUpdate === 'tool_call_update');
  assert.equal(results.length, READS);
  for (const e of results) {
    assert.equal(e.data.status, 'completed');
    assert.ok(e.data._meta['berth.record.truncated'].bytes > FILE.length, 'the marker names the whole size');
    assert.match(JSON.stringify(e.data.content), /more characters in the full record/);
  }
});

test('the streamed export carries every result whole, and /health stays prompt while four are read at once', async () => {
  const health = await watchHealth(stack.daemon.url);
  const [json, ...others] = await Promise.all(
    ['json', 'jsonl', 'md', 'html'].map(async (format) => {
      const res = await stack.daemon.fetch(`/session/${sessionId}/export?format=${format}`);
      assert.equal(res.status, 200, format);
      return res.text();
    }),
  );
  assertHealthy('four streamed exports of a large transcript', await health.stop());
  const calls = JSON.parse(json!).messages.filter((m: any) => m.type === 'tool_call');
  assert.equal(calls.length, READS);
  for (const m of calls) {
    assert.equal(m.toolCall.status, 'completed');
    assert.ok(m.toolCall.output.includes(FILE.trimEnd()), 'the whole file, not the preview');
  }
  for (const text of others) assert.ok(text.split('0123456789abcdef'.repeat(7_680)).length - 1 >= READS, 'every format carries the whole results');
});
