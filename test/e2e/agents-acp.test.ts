import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { TEST_AGENT_ID, withAgents } from '../support/acp-stack.js';
import type { TestDaemon } from '../support/daemon.js';
import { EventReader, newSession, optionOf, select, submit, type WireEvent } from '../support/session-client.js';
import { stackPerSuite } from '../support/stack.js';

/** External agents over ACP (issue 12), driven by the small agent of the test suite. */

async function turn(d: TestDaemon, sessionId: string, text: string, events: EventReader): Promise<{ promptId: string; terminal: WireEvent }> {
  const res = await submit(d, sessionId, text);
  assert.equal(res.status, 202, JSON.stringify(res.body));
  const promptId = res.body.promptId as string;
  return { promptId, terminal: await events.terminal(promptId) };
}

/** The agent's message text of one prompt. */
function said(events: EventReader, promptId: string): string {
  return events.seen
    .filter((e) => e.type === 'session_update' && e.promptId === promptId && e.data.update.sessionUpdate === 'agent_message_chunk')
    .map((e) => e.data.update.content.text)
    .join('');
}

async function agentSession(d: TestDaemon, body: Record<string, unknown> = {}) {
  const { sessionId, clientId, body: created } = await newSession(d, { modelServiceId: TEST_AGENT_ID, ...body });
  const events = await EventReader.open(d, sessionId);
  return { sessionId, clientId, created, events };
}

describe('external agents over ACP', () => {
  let d: TestDaemon;
  stackPerSuite((stack) => (d = stack.daemon), withAgents({}, { files: { 'a.txt': 'alpha\nbeta\n' } }));

  it('lists the agent beside the model services in /capabilities', async () => {
    const caps = await d.json('GET', '/capabilities');
    assert.ok(caps.body.modelServices.includes(TEST_AGENT_ID), JSON.stringify(caps.body.modelServices));
    assert.equal(caps.body.agents.find((a: { id: string }) => a.id === TEST_AGENT_ID)?.id, TEST_AGENT_ID);
  });

  it('runs a text turn on the agent selected by modelServiceId, with its models as <agentId>/<modelId>', async () => {
    const s = await agentSession(d);
    assert.equal(s.created.modelApplied, true);
    const { promptId, terminal } = await turn(d, s.sessionId, 'say hello from the agent', s.events);
    assert.equal(terminal.type, 'turn_complete');
    assert.equal(terminal.data.stopReason, 'end_turn');
    assert.equal(said(s.events, promptId), 'hello from the agent');
    const context = await d.json('GET', `/session/${s.sessionId}/context`);
    assert.equal(context.status, 200);
    assert.equal(context.body.state._meta.harness, TEST_AGENT_ID);
    const models = context.body.state.models;
    assert.equal(models.currentModelId, `${TEST_AGENT_ID}/fast`);
    assert.deepEqual(models.availableModels.map((m: { modelId: string }) => m.modelId), [`${TEST_AGENT_ID}/fast`, `${TEST_AGENT_ID}/smart`]);
    const caps = await d.json('GET', '/capabilities');
    const listed = caps.body.agents.find((a: { id: string }) => a.id === TEST_AGENT_ID);
    assert.deepEqual(listed.models.map((m: { modelId: string }) => m.modelId), [`${TEST_AGENT_ID}/fast`, `${TEST_AGENT_ID}/smart`]);
    s.events.close();
  });

  it('publishes what the agent announces between turns, such as its commands right after session/new', async () => {
    const s = await agentSession(d);
    const announced = await s.events.until((e) => e.type === 'session_update' && e.data.update.sessionUpdate === 'available_commands_update');
    assert.equal(announced.promptId, undefined);
    assert.equal(announced.data.sessionId, s.sessionId);
    assert.deepEqual(announced.data.update.availableCommands.map((c: { name: string }) => c.name), ['say']);
    s.events.close();
  });

  it('switches the agent model through session/set_model', async () => {
    const s = await agentSession(d);
    const switched = await d.json('POST', `/session/${s.sessionId}/model`, { modelId: `${TEST_AGENT_ID}/smart` });
    assert.equal(switched.status, 200, JSON.stringify(switched.body));
    const { promptId } = await turn(d, s.sessionId, 'model?', s.events);
    assert.equal(said(s.events, promptId), 'model smart');
    const unknown = await d.json('POST', `/session/${s.sessionId}/model`, { modelId: `${TEST_AGENT_ID}/nope` });
    assert.equal(unknown.status, 404);
    s.events.close();
  });

  it('asks with the agent options, writes through Berth fs with a receipt, and the file lands in the workspace', async () => {
    const s = await agentSession(d);
    const res = await submit(d, s.sessionId, 'write notes/out.txt written by the agent');
    const promptId = res.body.promptId as string;
    const request = await s.events.type('permission_request', (e) => e.promptId === promptId);
    assert.deepEqual(request.data.options.map((o: { optionId: string }) => o.optionId), ['yes', 'yes-always', 'no']);
    assert.equal(request.data.toolCall.kind, 'edit');
    const vote = await d.json('POST', `/session/${s.sessionId}/permission/${request.data.requestId}`, select(optionOf(request, 'allow_once')));
    assert.equal(vote.status, 200);
    await s.events.terminal(promptId);
    assert.equal(said(s.events, promptId), 'written');
    assert.equal(readFileSync(join(d.workspace, 'notes/out.txt'), 'utf8'), 'written by the agent');
    const db = new Database(join(d.home, 'berth.db'), { readonly: true });
    try {
      const receipts = db
        .prepare("SELECT status FROM receipts WHERE namespace = ? AND tool_name = 'workspace_write' AND call_id LIKE 'acp-%'")
        .all(`session:${s.sessionId}`) as { status: string }[];
      assert.deepEqual(receipts, [{ status: 'completed' }], 'the agent write has one completed receipt');
    } finally {
      db.close();
    }
    const second = await submit(d, s.sessionId, 'write notes/out.txt rewritten');
    const again = await s.events.type('permission_request', (e) => e.promptId === second.body.promptId);
    await d.json('POST', `/session/${s.sessionId}/permission/${again.data.requestId}`, select(optionOf(again, 'reject_once')));
    await s.events.terminal(second.body.promptId);
    assert.equal(said(s.events, second.body.promptId), 'not written');
    assert.equal(readFileSync(join(d.workspace, 'notes/out.txt'), 'utf8'), 'written by the agent', 'a rejected write changes nothing');
    s.events.close();
  });

  it('remembers an "always" answer itself and asks no more for that kind of call', async () => {
    const s = await agentSession(d);
    const first = await submit(d, s.sessionId, 'write always.txt one');
    const request = await s.events.type('permission_request', (e) => e.promptId === first.body.promptId);
    await d.json('POST', `/session/${s.sessionId}/permission/${request.data.requestId}`, select('yes-always'));
    await s.events.terminal(first.body.promptId);
    const { promptId } = await turn(d, s.sessionId, 'write always.txt two', s.events);
    assert.equal(said(s.events, promptId), 'written');
    assert.equal(s.events.seen.filter((e) => e.type === 'permission_request' && e.promptId === promptId).length, 0);
    assert.equal(readFileSync(join(d.workspace, 'always.txt'), 'utf8'), 'two');
    s.events.close();
  });

  it('writes unasked under yolo, and reads through Berth fs', async () => {
    const s = await agentSession(d, { approvalMode: 'yolo' });
    const w = await turn(d, s.sessionId, 'write yolo.txt free', s.events);
    assert.equal(said(s.events, w.promptId), 'written');
    const r = await turn(d, s.sessionId, 'read a.txt', s.events);
    assert.equal(said(s.events, r.promptId), 'content: alpha\nbeta\n');
    assert.equal(s.events.seen.filter((e) => e.type === 'permission_request').length, 0);
    s.events.close();
  });

  it('refuses every effect in plan mode without asking: the agent\'s permission request and its command', async () => {
    const s = await agentSession(d, { approvalMode: 'plan' });
    const w = await turn(d, s.sessionId, 'write plan.txt nope', s.events);
    assert.equal(said(s.events, w.promptId), 'not written');
    const r = await turn(d, s.sessionId, 'run touch plan-ran.txt', s.events);
    assert.equal(said(s.events, r.promptId), 'not run');
    assert.equal(s.events.seen.filter((e) => e.type === 'permission_request').length, 0);
    assert.equal(existsSync(join(d.workspace, 'plan.txt')) || existsSync(join(d.workspace, 'plan-ran.txt')), false);
    s.events.close();
  });

  it('refuses a path outside the workspace with an error answer', async () => {
    const s = await agentSession(d);
    const { promptId } = await turn(d, s.sessionId, 'outside', s.events);
    assert.match(said(s.events, promptId), /^read failed: -32602 .*outside the workspace/);
    s.events.close();
  });

  it('runs a command through terminal/* after its permission, and not after a rejection', async () => {
    const s = await agentSession(d);
    const ran = await submit(d, s.sessionId, 'run echo from-terminal');
    const ask = await s.events.type('permission_request', (e) => e.promptId === ran.body.promptId);
    assert.equal(ask.data.toolCall.kind, 'execute');
    await d.json('POST', `/session/${s.sessionId}/permission/${ask.data.requestId}`, select('yes'));
    await s.events.terminal(ran.body.promptId);
    assert.equal(said(s.events, ran.body.promptId), 'exit 0: from-terminal');
    const no = await submit(d, s.sessionId, 'run touch never.txt');
    const ask2 = await s.events.type('permission_request', (e) => e.promptId === no.body.promptId);
    await d.json('POST', `/session/${s.sessionId}/permission/${ask2.data.requestId}`, select('no'));
    await s.events.terminal(no.body.promptId);
    assert.equal(said(s.events, no.body.promptId), 'not run');
    assert.equal(existsSync(join(d.workspace, 'never.txt')), false);
    s.events.close();
  });

  it('cancels a turn mid-way with session/cancel', async () => {
    const s = await agentSession(d);
    const res = await submit(d, s.sessionId, 'wait');
    await s.events.until((e) => e.promptId === res.body.promptId && e.data?.update?.content?.text === 'waiting');
    const cancel = await d.json('POST', `/session/${s.sessionId}/cancel`, {});
    assert.ok(cancel.status < 300, JSON.stringify(cancel.body));
    const terminal = await s.events.terminal(res.body.promptId);
    assert.equal(terminal.data.stopReason, 'cancelled');
    s.events.close();
  });

  it('survives malformed lines, answers unknown methods and bad params with errors, drops updates for another session', async () => {
    const s = await agentSession(d);
    const m = await turn(d, s.sessionId, 'malformed', s.events);
    assert.match(said(s.events, m.promptId), /^survived; unknown: -32601 .*; bad params: -32602 /);
    const o = await turn(d, s.sessionId, 'other-session', s.events);
    assert.match(said(s.events, o.promptId), /^read for another session: -32602 /);
    assert.equal(JSON.stringify(s.events.seen).includes('leaked'), false);
    s.events.close();
  });

  it('gives the agent a private HOME and no BERTH_* variables but the module protocol\'s', async () => {
    const s = await agentSession(d);
    const { promptId } = await turn(d, s.sessionId, 'env', s.events);
    const text = said(s.events, promptId);
    assert.match(text, new RegExp(`^HOME=${join(d.home, 'agents', TEST_AGENT_ID, 'home')} berth=BERTH_MODULE_SOCKET,BERTH_MODULE_TOKEN secret=$`));
    s.events.close();
  });
});
