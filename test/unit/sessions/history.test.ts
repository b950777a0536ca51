import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Conversation } from '../../../src/agents/builtin/conversation.js';
import { historyFromRecords } from '../../../src/sessions/history.js';
import type { TranscriptRecord } from '../../../src/transcript/records.js';

let seq = 0;
const rec = (kind: string, data: Record<string, unknown>, extra: Partial<TranscriptRecord> = {}): TranscriptRecord => ({
  sessionId: 's',
  seq: ++seq,
  recordId: `r${seq}`,
  kind,
  promptId: 'p1',
  at: seq,
  data,
  ...extra,
});
const ok = (id: string, text: string) =>
  rec('tool_result', { toolCallId: id, status: 'completed', content: [{ type: 'content', content: { type: 'text', text } }], rawOutput: { text } });

/** What the model would be sent after a restore: roles, text and call ids, compact. */
function restored(records: TranscriptRecord[]) {
  const c = new Conversation('system');
  c.restore(historyFromRecords(records));
  return c.view().slice(1).map((m: any) => [m.role, m.content, ...(m.tool_calls ? [m.tool_calls.map((t: any) => t.id)] : []), ...(m.tool_call_id ? [m.tool_call_id] : [])]);
}

describe('a transcript as model context', () => {
  test('one answer with two calls becomes one assistant message with both calls, then both results in order', () => {
    const history = restored([
      rec('user_prompt', { content: [{ type: 'text', text: 'read two files' }] }),
      rec('agent_thought', { text: 'thoughts are not context' }),
      rec('agent_message', { text: 'Reading both.', usage: { totalTokens: 9 } }),
      rec('tool_call', { toolCallId: 'a', name: 'workspace_read', args: { path: 'a' } }),
      ok('a', 'A'),
      rec('tool_call', { toolCallId: 'b', name: 'workspace_read', args: { path: 'b' } }),
      ok('b', 'B'),
      rec('agent_message', { text: 'Both read.', usage: { totalTokens: 9 } }),
      rec('turn_end', { stopReason: 'end_turn' }),
    ]);
    assert.deepEqual(history, [
      ['user', 'read two files'],
      ['assistant', 'Reading both.', ['a', 'b']],
      ['tool', 'A', 'a'],
      ['tool', 'B', 'b'],
      ['assistant', 'Both read.'],
    ]);
  });

  test('a message typed during the turn comes back as the user message the model read after the tool result', () => {
    const history = restored([
      rec('user_prompt', { content: [{ type: 'text', text: 'read a' }] }),
      rec('agent_message', { text: 'Reading.', usage: { totalTokens: 9 } }),
      rec('tool_call', { toolCallId: 'a', name: 'workspace_read', args: { path: 'a' } }),
      ok('a', 'A'),
      rec('mid_turn_message', { messageId: 'm1', content: [{ type: 'text', text: 'and b too' }] }),
      rec('agent_message', { text: 'Read, b next.', usage: { totalTokens: 9 } }),
      rec('turn_end', { stopReason: 'end_turn' }),
    ]);
    assert.deepEqual(history, [
      ['user', 'read a'],
      ['assistant', 'Reading.', ['a']],
      ['tool', 'A', 'a'],
      ['user', 'and b too'],
      ['assistant', 'Read, b next.'],
    ]);
  });

  test('a call an MCP client made outside any turn stays out of the model context, even in the middle of a turn', () => {
    const history = restored([
      rec('user_prompt', { content: [{ type: 'text', text: 'read a' }] }),
      rec('agent_message', { text: 'Reading.', usage: { totalTokens: 9 } }),
      rec('tool_call', { toolCallId: 'a', name: 'workspace_read', args: { path: 'a' } }),
      rec('tool_call', { toolCallId: 'mcp_1', name: 'workspace_write', args: { path: 'b' } }, { promptId: null }),
      ok('a', 'A'),
      rec('agent_message', { text: 'Read.', usage: { totalTokens: 9 } }),
      { ...ok('mcp_1', 'written'), promptId: null },
      rec('turn_end', { stopReason: 'end_turn' }),
    ]);
    assert.deepEqual(history, [
      ['user', 'read a'],
      ['assistant', 'Reading.', ['a']],
      ['tool', 'A', 'a'],
      ['assistant', 'Read.'],
    ]);
  });

  test('a usage-only record closes an answer, so calls of the next answer get their own assistant message', () => {
    const history = restored([
      rec('user_prompt', { content: [{ type: 'text', text: 'go' }] }),
      rec('agent_message', { text: '', usage: { totalTokens: 1 } }),
      rec('tool_call', { toolCallId: 'a', name: 'workspace_info', args: {} }),
      ok('a', 'info'),
      rec('agent_message', { text: '', usage: { totalTokens: 1 } }),
      rec('tool_call', { toolCallId: 'b', name: 'workspace_list', args: {} }),
      ok('b', 'list'),
    ]);
    assert.deepEqual(history, [
      ['user', 'go'],
      ['assistant', null, ['a']],
      ['tool', 'info', 'a'],
      ['assistant', null, ['b']],
      ['tool', 'list', 'b'],
    ]);
  });

  test('without text or usage between two answers their calls share one message, each still answered in order', () => {
    const history = restored([
      rec('user_prompt', { content: [{ type: 'text', text: 'go' }] }),
      rec('tool_call', { toolCallId: 'a', name: 'workspace_info', args: {} }),
      ok('a', 'info'),
      rec('tool_call', { toolCallId: 'b', name: 'workspace_list', args: {} }),
      ok('b', 'list'),
    ]);
    assert.deepEqual(history, [
      ['user', 'go'],
      ['assistant', null, ['a', 'b']],
      ['tool', 'info', 'a'],
      ['tool', 'list', 'b'],
    ]);
  });

  test('a failed call comes back as its error, and a call whose result was lost gets a stand-in so the list stays sendable', () => {
    const history = restored([
      rec('user_prompt', { content: [{ type: 'text', text: 'delete it' }] }),
      rec('agent_message', { text: 'Deleting.' }),
      rec('tool_call', { toolCallId: 'a', name: 'workspace_delete', args: { path: 'x' } }),
      rec('tool_result', {
        toolCallId: 'a',
        status: 'failed',
        content: [],
        rawOutput: { error: { code: 'permission_rejected', message: 'no', retryable: false } },
      }),
      rec('tool_call', { toolCallId: 'b', name: 'workspace_write', args: { path: 'y' } }),
      rec('turn_end', { interrupted: true, error: { code: 'daemon_lost', message: 'gone' } }),
      rec('user_prompt', { content: [{ type: 'text', text: 'again' }] }, { promptId: 'p2' }),
    ]);
    assert.equal(history.length, 5);
    assert.deepEqual(history[1], ['assistant', 'Deleting.', ['a', 'b']]);
    assert.deepEqual(JSON.parse(history[2]![1] as string), { error: { code: 'permission_rejected', message: 'no', retryable: false } });
    assert.equal(history[3]![0], 'tool');
    assert.equal(history[3]![2], 'b');
    assert.match(history[3]![1] as string, /did not run/);
    assert.deepEqual(history[4], ['user', 'again']);
  });

  test('unreadable records and records of other kinds are left out', () => {
    const items = historyFromRecords([
      rec('user_prompt', { content: [{ type: 'text', text: 'hi' }] }),
      rec('agent_message', {}, { unreadable: true }),
      rec('permission_request', { requestId: 'q' }),
      rec('metadata', { displayName: 'x' }),
      rec('agent_message', { text: 'hello' }),
    ]);
    assert.deepEqual(items, [
      { kind: 'user', content: [{ type: 'text', text: 'hi' }] },
      { kind: 'assistant', text: 'hello', toolCalls: [] },
    ]);
  });

  test('a rewind leaves out the records from its first to its last undone one, and keeps what was recorded after', () => {
    const turn = (n: number) => [
      rec('user_prompt', { content: [{ type: 'text', text: `q${n}` }] }, { promptId: `p${n}` }),
      rec('agent_message', { text: `a${n}` }, { promptId: `p${n}` }),
      rec('turn_end', { stopReason: 'end_turn' }, { promptId: `p${n}` }),
    ];
    const one = turn(1);
    const two = turn(2);
    const late = turn(3);
    const three = turn(4);
    const bounded = rec('rewind', { fromRecordId: two[0]!.recordId, toRecordId: two[2]!.recordId }, { promptId: null });
    assert.deepEqual(restored([...one, ...two, ...late, bounded, ...three]), [
      ['user', 'q1'],
      ['assistant', 'a1'],
      ['user', 'q3'],
      ['assistant', 'a3'],
      ['user', 'q4'],
      ['assistant', 'a4'],
    ]);
    const open = rec('rewind', { fromRecordId: two[0]!.recordId }, { promptId: null });
    assert.deepEqual(restored([...one, ...two, ...late, open, ...three]), [
      ['user', 'q1'],
      ['assistant', 'a1'],
      ['user', 'q4'],
      ['assistant', 'a4'],
    ], 'without toRecordId the undone part ends at the rewind');
  });
});
