import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { startScriptedModel, type ScriptedModel } from '../../src/devtools/scripted-model/index.js';
import { startTestDaemon, type TestDaemon } from '../support/daemon.js';
import { AGENT_BOUNDS } from '../support/acp-stack.js';
import { QWEN_AGENT_ID, qwenAgentSpec, qwenEntry, writeQwenSettings } from '../support/qwen-agent.js';
import { EventReader, newSession, optionOf, select, submit, type WireEvent } from '../support/session-client.js';
import { tempDir } from '../support/tmp.js';

/**
 * The real `qwen --acp` (@qwen-code/qwen-code 0.24.4, installed into the bench cache) as a
 * Berth agent on the project's scripted model (issue 12 acceptance).
 */

const said = (events: readonly WireEvent[], promptId: string): string =>
  events
    .filter((e) => e.type === 'session_update' && e.promptId === promptId && e.data.update.sessionUpdate === 'agent_message_chunk')
    .map((e) => e.data.update.content?.text ?? '')
    .join('');

describe('qwen --acp as an external agent', { timeout: 600_000 }, () => {
  let model: ScriptedModel;
  let d: TestDaemon;

  before(async () => {
    const entry = await qwenEntry();
    model = await startScriptedModel({ port: 0 });
    const home = tempDir('berth-home-');
    writeQwenSettings(home, model.url);
    d = await startTestDaemon({
      home,
      config: { agents: { agents: [qwenAgentSpec(entry, model.url)], defaultAgent: null, startTimeoutMs: 120_000, memoryMb: null, ...AGENT_BOUNDS } },
    });
  });
  beforeEach(() => model.reset());
  after(async () => {
    await d?.close();
    await model?.close();
  });

  async function qwenSession(body: Record<string, unknown> = {}) {
    const { sessionId } = await newSession(d, { modelServiceId: QWEN_AGENT_ID, ...body });
    return { sessionId, events: await EventReader.open(d, sessionId) };
  }

  it('runs a text turn: the scripted reply streams back as agent_message_chunk and the turn completes', async () => {
    const s = await qwenSession();
    model.enqueue({ kind: 'reply', text: 'Hello from the scripted model.' });
    const res = await submit(d, s.sessionId, 'Say hello');
    assert.equal(res.status, 202);
    const terminal = await s.events.terminal(res.body.promptId);
    assert.equal(terminal.type, 'turn_complete', JSON.stringify(terminal.data));
    assert.equal(terminal.data.stopReason, 'end_turn');
    assert.equal(said(s.events.seen, res.body.promptId), 'Hello from the scripted model.');
    // The event kinds of qwen serve's text turn (shared reference recording c-sse-text-turn), less agent_thought_chunk
    // (this scripted reply has no reasoning). Intended difference: qwen serve shows available_commands_update before the
    // first prompt; under Berth it comes when qwen sends it, which may be after the prompt's echo.
    // qwen sends its commands on its own time: on a fast machine after the turn has ended.
    await s.events.type('session_update', (e) => e.data.update.sessionUpdate === 'available_commands_update');
    const kinds = new Set(s.events.seen.map((e) => (e.type === 'session_update' ? `session_update/${e.data.update.sessionUpdate}` : e.type)));
    const recorded = ['session_update/available_commands_update', 'session_update/user_message_chunk', 'session_update/agent_message_chunk', 'session_update/usage_update', 'turn_complete'];
    assert.deepEqual(recorded.filter((k) => !kinds.has(k)), [], [...kinds].join(', '));
    s.events.close();
  });

  it('runs one qwen, not a second copy relaunched under the first (qwen serve runs it the same way)', async () => {
    const s = await qwenSession();
    model.enqueue({ kind: 'reply', text: 'one' });
    const res = await submit(d, s.sessionId, 'Say hello');
    assert.equal((await s.events.terminal(res.body.promptId)).type, 'turn_complete');
    const { agentPids } = await import('../support/agent-pids.js');
    // The bin entry runs the CLI (`cli.js`) once; without QWEN_CODE_NO_RELAUNCH that CLI starts itself again.
    assert.equal(agentPids(d.home, '/cli.js').length, 1);
    s.events.close();
  });

  it('writes a file through Berth fs after the permission is approved', async () => {
    const s = await qwenSession();
    const target = join(d.workspace, 'notes', 'qwen.txt');
    model.enqueue(
      { kind: 'reply', toolCalls: [{ name: 'write_file', arguments: { file_path: target, content: 'written by qwen\n' } }] },
      { kind: 'reply', text: 'Done.' },
    );
    const res = await submit(d, s.sessionId, 'Create notes/qwen.txt');
    const request = await s.events.type('permission_request', (e) => e.promptId === res.body.promptId);
    assert.equal(request.data.toolCall.kind, 'edit');
    const vote = await d.json('POST', `/session/${s.sessionId}/permission/${request.data.requestId}`, select(optionOf(request, 'allow_once')));
    assert.equal(vote.status, 200);
    const terminal = await s.events.terminal(res.body.promptId);
    assert.equal(terminal.type, 'turn_complete', JSON.stringify(terminal.data));
    assert.equal(readFileSync(target, 'utf8'), 'written by qwen\n');
    s.events.close();
  });

  it('asks before a shell command and does not run it when rejected', async () => {
    const s = await qwenSession();
    model.enqueue(
      { kind: 'reply', toolCalls: [{ name: 'run_shell_command', arguments: { command: 'touch rejected.txt', is_background: false } }] },
      { kind: 'reply', text: 'Not run.' },
    );
    const res = await submit(d, s.sessionId, 'Touch a file');
    const request = await s.events.type('permission_request', (e) => e.promptId === res.body.promptId);
    assert.equal(request.data.toolCall.kind, 'execute');
    await d.json('POST', `/session/${s.sessionId}/permission/${request.data.requestId}`, select(optionOf(request, 'reject_once')));
    await s.events.terminal(res.body.promptId);
    assert.equal(existsSync(join(d.workspace, 'rejected.txt')), false);
    s.events.close();
  });

  it('runs an approved shell command in the workspace', async () => {
    const s = await qwenSession();
    model.enqueue(
      { kind: 'reply', toolCalls: [{ name: 'run_shell_command', arguments: { command: 'echo approved > approved.txt', is_background: false } }] },
      { kind: 'reply', text: 'Ran it.' },
    );
    const res = await submit(d, s.sessionId, 'Write approved.txt with the shell');
    const request = await s.events.type('permission_request', (e) => e.promptId === res.body.promptId);
    await d.json('POST', `/session/${s.sessionId}/permission/${request.data.requestId}`, select(optionOf(request, 'allow_once')));
    const terminal = await s.events.terminal(res.body.promptId);
    assert.equal(terminal.type, 'turn_complete', JSON.stringify(terminal.data));
    assert.equal(readFileSync(join(d.workspace, 'approved.txt'), 'utf8'), 'approved\n');
    s.events.close();
  });

  it('offers the models qwen reports as qwen/<modelId> and switches between them', async () => {
    const s = await qwenSession();
    const context = await d.json('GET', `/session/${s.sessionId}/context`);
    const models = context.body.state.models;
    const ids = models.availableModels.map((m: { modelId: string }) => m.modelId);
    assert.ok(ids.length >= 2 && ids.every((id: string) => id.startsWith(`${QWEN_AGENT_ID}/`)), JSON.stringify(ids));
    const other = ids.find((id: string) => id !== models.currentModelId);
    const switched = await d.json('POST', `/session/${s.sessionId}/model`, { modelId: other });
    assert.equal(switched.status, 200, JSON.stringify(switched.body));
    model.enqueue({ kind: 'reply', text: 'on the other model' });
    const res = await submit(d, s.sessionId, 'Which model?');
    await s.events.terminal(res.body.promptId);
    const chats = await model.waitForRequests(1, '/chat/completions');
    assert.equal(chats.at(-1)!.body.model, 'mock-model-2', 'the request went to the model switched to');
    s.events.close();
  });

  it('reports a qwen killed mid-turn with turn_error and session_died, and the next prompt runs on a new qwen', async () => {
    const s = await qwenSession();
    model.enqueue({ kind: 'hang', text: 'working' });
    const res = await submit(d, s.sessionId, 'Long task');
    await model.waitForRequests(1, '/chat/completions');
    const { agentPids } = await import('../support/agent-pids.js');
    for (const pid of agentPids(d.home, 'cli-entry.js')) process.kill(pid, 'SIGKILL');
    const rest = await s.events.rest();
    assert.equal(rest.find((e) => e.type === 'turn_error' && e.data.promptId === res.body.promptId)?.data.code, 'agent_exited');
    assert.equal(rest.at(-1)!.type, 'session_died');
    model.enqueue({ kind: 'reply', text: 'back again' });
    const next = await submit(d, s.sessionId, 'Are you there?');
    assert.equal(next.status, 202);
    const again = await EventReader.open(d, s.sessionId);
    const terminal = await again.terminal(next.body.promptId);
    assert.equal(terminal.type, 'turn_complete', JSON.stringify(terminal.data));
    assert.equal(said(again.seen, next.body.promptId), 'back again');
    again.close();
  });

  it('loads a qwen session after a daemon restart through qwen\'s own session/load', async () => {
    const entry = await qwenEntry();
    const home = tempDir('berth-home-');
    const workspace = tempDir('berth-ws-');
    writeQwenSettings(home, model.url);
    const config = { agents: { agents: [qwenAgentSpec(entry, model.url)], defaultAgent: null, startTimeoutMs: 120_000, memoryMb: null, ...AGENT_BOUNDS } };
    const first = await startTestDaemon({ home, workspace, keep: true, config });
    let sessionId: string;
    try {
      ({ sessionId } = await newSession(first, { modelServiceId: QWEN_AGENT_ID }));
      const events = await EventReader.open(first, sessionId);
      model.enqueue({ kind: 'reply', text: 'Noted.' });
      const res = await submit(first, sessionId, 'Remember the word kiwi');
      await events.terminal(res.body.promptId);
      events.close();
    } finally {
      await first.close();
    }
    const second = await startTestDaemon({ home, workspace, config });
    try {
      const loaded = await second.json('POST', `/session/${sessionId}/load`, {});
      assert.equal(loaded.status, 200, JSON.stringify(loaded.body));
      const events = await EventReader.open(second, sessionId, { lastEventId: null });
      model.enqueue({ kind: 'reply', text: 'The word was kiwi.' });
      const res = await submit(second, sessionId, 'Which word?');
      const terminal = await events.terminal(res.body.promptId);
      assert.equal(terminal.type, 'turn_complete', JSON.stringify(terminal.data));
      const notice = events.seen.find((e) => e.type === 'session_update' && e.data.update._meta?.berth?.restoredBy);
      assert.equal(notice?.data.update._meta.berth.restoredBy, 'agent_load');
      const last = model.completions().at(-1)!;
      assert.match(JSON.stringify(last.messages), /Remember the word kiwi/, 'qwen sent the loaded conversation to the model');
      events.close();
    } finally {
      await second.close();
    }
  });

  it('cancels a turn mid-way', async () => {
    const s = await qwenSession();
    model.enqueue({ kind: 'hang', text: 'thinking' });
    const res = await submit(d, s.sessionId, 'Take your time');
    await model.waitForRequests(1, '/chat/completions');
    const cancel = await d.json('POST', `/session/${s.sessionId}/cancel`, {});
    assert.ok(cancel.status < 300);
    const terminal = await s.events.terminal(res.body.promptId);
    assert.equal(terminal.data.stopReason, 'cancelled');
    s.events.close();
  });
});
