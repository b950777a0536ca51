import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TranscriptOutline } from '../../../src/transcript/outline.js';
import type { TranscriptRecord } from '../../../src/transcript/records.js';
import { eventCount, recordEvents } from '../../../src/transcript/replay-events.js';
import { replayWindow, type WindowOptions } from '../../../src/transcript/window.js';

let seq = 0;
const rec = (kind: string, data: Record<string, unknown>, promptId: string | null = 'p1', unreadable = false): TranscriptRecord => {
  seq += 1;
  return { sessionId: 's', seq, recordId: `r${seq}`, kind, promptId, at: 1000 + seq, data, ...(unreadable ? { unreadable: true as const } : {}) };
};

/** One record of every kind recordEvents knows, in the shapes that change its count, and some it does not know. */
const everyKind = (promptId: string | null): TranscriptRecord[] => [
  rec('user_prompt', { content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }, promptId),
  rec('user_prompt', { content: 'not a list' }, promptId),
  rec('mid_turn_message', { messageId: 'm1', content: [{ type: 'text', text: 'also' }] }, promptId),
  rec('mid_turn_message', { messageId: 'm2' }, promptId),
  rec('agent_message', { text: 'hi', usage: { inputTokens: 1 } }, promptId),
  rec('agent_message', { text: '', usage: { inputTokens: 1 } }, promptId),
  rec('agent_message', { text: 'only text' }, promptId),
  rec('agent_message', { text: 7, usage: 0 }, promptId),
  rec('agent_thought', { text: 'think' }, promptId),
  rec('tool_call', { toolCallId: 'c', name: 'read', args: {} }, promptId),
  rec('tool_result', { toolCallId: 'c', status: 'completed', content: [] }, promptId),
  rec('plan', { entries: [] }, promptId),
  rec('permission_request', { requestId: 'q', toolCall: {}, options: [] }, promptId),
  rec('permission_outcome', { requestId: 'q' }, promptId),
  rec('model_switch', { modelId: 'm' }, promptId),
  rec('model_switch', { requestedModelId: 'm', error: 'no' }, promptId),
  rec('metadata', { displayName: 'x' }, promptId),
  rec('approval_mode', { previous: 'default', next: 'plan' }, promptId),
  rec('rewind', { rewindId: 'w' }, promptId),
  rec('turn_end', { stopReason: 'end_turn' }, promptId),
  rec('turn_end', { error: { message: 'x' } }, promptId),
  rec('module_message', { text: 'm' }, promptId),
  rec('compaction', { summary: 's' }, promptId),
  rec('something_new', { x: 1 }, promptId),
  rec('tool_result', {}, promptId, true),
];

test('eventCount says how many events recordEvents builds, for every kind', async () => {
  for (const r of everyKind('p1')) assert.equal(eventCount(r), recordEvents(r).length, `${r.kind} ${JSON.stringify(r.data)}`);
});

/** A store over an array, as the outline reads it; counts the records it hands out. */
function storeOf(records: TranscriptRecord[]) {
  const store = {
    read: 0,
    async range(_sessionId: string, from: number, to: number) {
      const out = records.filter((r) => r.seq >= from && r.seq < to);
      store.read += out.length;
      return out;
    },
    recordIdAt: async (_sessionId: string, at: number) => records.find((r) => r.seq === at)?.recordId,
  };
  return store;
}

const options = (maxRecords: number): WindowOptions => ({ sessionId: 's', maxRecords, maxBytes: 4 * 1024 * 1024, scope: 'compacted_replay' });

test('an outline window is the window of the whole transcript, reading only the records it sends', async () => {
  seq = 0;
  const records: TranscriptRecord[] = [];
  for (let turn = 0; turn < 20; turn++) records.push(...everyKind(`p${turn}`));
  const store = storeOf(records);
  const outline = TranscriptOutline.empty(store, 's');
  for (const size of [1, 10, 100, records.length, records.length + 5]) {
    store.read = 0;
    const entries = (await outline.current());
    const beforeRead = store.read;
    assert.deepEqual(await outline.window(entries, options(size)), replayWindow(records, options(size)), `window of ${size}`);
    assert.equal(store.read - beforeRead, Math.min(size, records.length), 'the window reads its own records only');
  }
  // Records appended later: only they are read to bring the outline up to date.
  const more = everyKind('p-late');
  records.push(...more);
  store.read = 0;
  const entries = (await outline.current());
  assert.equal(store.read, more.length);
  assert.deepEqual(await outline.window(entries, options(30)), replayWindow(records, options(30)));
});

test('an outline window of a subset (the settled turns of a live session) matches the window of those records', async () => {
  seq = 0;
  const records: TranscriptRecord[] = [];
  for (let turn = 0; turn < 6; turn++) records.push(...everyKind(`p${turn}`));
  records.push(...everyKind('running'));
  const outline = TranscriptOutline.of(storeOf(records), 's', records);
  const live = (promptId: string | null) => promptId === 'running';
  const entries = (await outline.current());
  assert.deepEqual(
    await outline.window(entries.filter((e) => !live(e.promptId)), options(25)),
    replayWindow(records.filter((r) => !live(r.promptId)), options(25)),
  );
  assert.deepEqual(await outline.window(entries.filter((e) => live(e.promptId)), options(500)), replayWindow(records.filter((r) => live(r.promptId)), options(500)));
});

test('an outline whose last record storage no longer holds starts over', async () => {
  seq = 0;
  const records = everyKind('p1');
  const outline = TranscriptOutline.of(storeOf(records), 's', records);
  records.splice(0, records.length, ...everyKind('p2').map((r, i) => ({ ...r, seq: i + 1 })));
  assert.deepEqual(await outline.window((await outline.current()), options(5)), replayWindow(records, options(5)));
});
