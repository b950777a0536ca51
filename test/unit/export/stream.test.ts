import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildExportDocument, EXPORT_FORMATS, renderExport } from '../../../src/export/index.js';
import type { ExportRecord } from '../../../src/export/source.js';
import { EXPORT_BATCH_RECORDS, exportChunks, type ExportStore } from '../../../src/export/stream.js';

const row = { id: 'a1b2c3d4-0000-4000-8000-000000000000', createdAt: 1_000, updatedAt: 2_000, displayName: 'Streamed', modelId: 'm', approvalMode: 'default' };

/** A transcript that crosses several batches, with calls whose results are stored batches later. */
function records(): (ExportRecord & { seq: number })[] {
  const out: (ExportRecord & { seq: number })[] = [];
  const add = (kind: string, data: Record<string, unknown>, promptId: string | null = 'p') =>
    out.push({ seq: out.length + 1, recordId: `r${out.length + 1}`, kind, promptId, at: 1_000 + out.length, data });
  add('tool_result', { toolCallId: 'early', status: 'completed', content: [], rawOutput: 'before its call' });
  add('tool_call', { toolCallId: 'early', name: 'workspace_read', args: {} });
  for (let turn = 0; turn < 5; turn++) {
    add('user_prompt', { content: [{ type: 'text', text: `prompt ${turn} with \`ticks\` and <tags>` }] });
    add('agent_message', { text: `answer ${turn}`, usage: { totalTokens: 10 } });
    add('permission_request', { requestId: `q${turn}`, toolCall: { title: 'Write' }, options: [{ optionId: 'ok', name: 'Allow', kind: 'allow_once' }] });
    for (let i = 0; i < 30; i++) add('tool_call', { toolCallId: `c${turn}-${i}`, name: 'workspace_read', title: `Read ${i}`, args: { path: `f${i}` } });
    for (let i = 0; i < 30; i++) add('tool_result', { toolCallId: `c${turn}-${i}`, status: i % 7 ? 'completed' : 'failed', content: [{ type: 'content', content: { type: 'text', text: `out ${i}` } }] });
    add('permission_outcome', { requestId: `q${turn}`, outcome: { outcome: 'selected', optionId: 'ok' } });
    add('agent_thought', { text: 'thinking' });
    add('turn_end', turn === 4 ? { error: { message: 'stopped', code: 'daemon_lost' }, interrupted: true } : { stopReason: 'end_turn' });
  }
  out.push({ seq: out.length + 1, recordId: 'bad', kind: 'agent_message', promptId: null, at: 9_999, data: {}, unreadable: true });
  return out;
}

function storeOf(all: (ExportRecord & { seq: number })[], overflow: Record<string, string> = {}): ExportStore {
  return { row, cwd: '/w', now: 5_000, lastSeq: all.length, range: async (from, to) => all.filter((r) => r.seq >= from && r.seq < to), overflowOf: async (id) => overflow[id] };
}

async function streamed(store: ExportStore, format: (typeof EXPORT_FORMATS)[number]): Promise<{ text: string; chunks: number }> {
  let text = '';
  let chunks = 0;
  for await (const c of exportChunks(store, format)) {
    text += c;
    chunks++;
  }
  return { text, chunks };
}

test('every format streamed a batch at a time is byte for byte the document rendered whole', async () => {
  const all = records();
  assert.ok(all.length > 3 * EXPORT_BATCH_RECORDS, 'the transcript spans several batches');
  const whole = buildExportDocument({ row, records: all, cwd: '/w', now: 5_000 });
  for (const format of EXPORT_FORMATS) {
    const { text, chunks } = await streamed(storeOf(all), format);
    assert.equal(text, renderExport(whole, format).body, format);
    assert.ok(chunks > 1, `${format} came in ${chunks} chunks`);
  }
  assert.equal(JSON.parse((await streamed(storeOf(all), 'json')).text).messages.length, whole.entries.length);
});

test('an empty transcript streams the same as it renders whole', async () => {
  const whole = buildExportDocument({ row, records: [], cwd: '/w', now: 5_000 });
  for (const format of EXPORT_FORMATS) assert.equal((await streamed(storeOf([]), format)).text, renderExport(whole, format).body, format);
});

test('a record kept as a preview is exported whole from its overflow', async () => {
  const big = 'x'.repeat(100_000);
  const all: (ExportRecord & { seq: number })[] = [
    { seq: 1, recordId: 'call', kind: 'tool_call', promptId: 'p', at: 1, data: { toolCallId: 'c', name: 'workspace_read', args: {} } },
    { seq: 2, recordId: 'res', kind: 'tool_result', promptId: 'p', at: 2, data: { toolCallId: 'c', status: 'completed', content: [{ type: 'content', content: { type: 'text', text: 'xxxx… [cut]' } }], _truncated: { bytes: 100_100 } } },
  ];
  const overflow = { res: JSON.stringify({ toolCallId: 'c', status: 'completed', content: [{ type: 'content', content: { type: 'text', text: big } }] }) };
  const json = JSON.parse((await streamed(storeOf(all, overflow), 'json')).text);
  assert.equal(json.messages[0].toolCall.output, big);
});
