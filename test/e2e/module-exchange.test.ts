import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DaemonClient } from '@qwen-code/sdk/daemon';
import { startScriptedModel, type ScriptedModel } from '../../src/devtools/scripted-model/index.js';
import { lastUserText } from '../../src/devtools/scripted-model/index.js';
import { askModule } from '../../src/modules/index.js';
import { startTestDaemon, type TestDaemon } from '../support/daemon.js';
import { openTab, until, type OpenedTab } from '../support/module.js';
import { removeDir, tempDir } from '../support/tmp.js';

const service = (id: string, model: ScriptedModel) => ({
  id,
  baseUrl: model.url,
  models: [{ id: 'scripted-model' }],
  defaultModel: 'scripted-model',
});

/** The messages of the last request a scripted model received. */
const lastMessages = (model: ScriptedModel) => model.requests.at(-1)!.body.messages as { role: string; content: unknown; tool_call_id?: string }[];

describe('two agents exchange a task and its report through the module protocol (issue 6 acceptance)', () => {
  let modelA: ScriptedModel;
  let modelB: ScriptedModel;
  let d: TestDaemon;
  before(async () => {
    modelA = await startScriptedModel({ port: 0 });
    modelB = await startScriptedModel({ port: 0 });
    d = await startTestDaemon({
      config: { modelServices: [service('a', modelA), service('b', modelB)], sessionIdleTimeoutMs: 0 },
    });
  });
  after(async () => {
    await d.close();
    await modelA.close();
    await modelB.close();
  });

  it('the first sends a task with its tool, the second gets it as its next prompt and reports, the first reads the report from its inbox', async () => {
    const a = await openTab(d, { modelServiceId: 'a', approvalMode: 'yolo' });
    const b = await openTab(d, { modelServiceId: 'b', approvalMode: 'yolo' });
    const task = 'Please run the tests and report.';
    const report = 'All 12 tests pass.';
    modelA.enqueue(
      { kind: 'reply', toolCalls: [{ id: 'send-task', name: 'tabs_send', arguments: { tab: b.tab, kind: 'task', text: task } }] },
      { kind: 'reply', toolCalls: [{ id: 'wait', name: 'workspace_ask', arguments: { question: `Tell me when tab ${b.tab} has reported.` } }] },
      { kind: 'reply', toolCalls: [{ id: 'read-inbox', name: 'tabs_inbox', arguments: {} }] },
      { kind: 'reply', text: `Tab ${b.tab} reports: ${report}` },
    );
    modelB.enqueue(
      { kind: 'reply', toolCalls: [{ id: 'send-report', name: 'tabs_send', arguments: { tab: a.tab, kind: 'report', text: report } }] },
      { kind: 'reply', text: 'Reported.' },
    );

    const prompt = await d.json('POST', `/session/${a.sessionId}/prompt`, { prompt: [{ type: 'text', text: 'Ask the other tab to run the tests.' }] });
    assert.equal(prompt.status, 202);

    // A waits on its owner while B works; B's report arrives while A is busy, so it waits in A's inbox.
    let question: { requestId: string } | undefined;
    await until(async () => {
      const status = await d.json('GET', `/session/${a.sessionId}/status`);
      question = status.body.pendingInteractions.find((p: { kind: string }) => p.kind === 'user_question');
      const waiting = await askModule(a.socket, { token: a.token, op: 'peek' });
      return question !== undefined && waiting.messages!.length === 1;
    }, 'the report waiting in the first tab inbox');
    const seenByB = await askModule(b.socket, { token: b.token, op: 'list' });
    assert.equal(seenByB.tabs!.find((t) => t.tab === a.tab)!.waiting, 1, 'the second tab sees its report waiting');

    // The second tab received the task as its next prompt, under a header naming sender, kind and the wait.
    const toB = lastUserText(modelB.requests[0]!.body);
    assert.equal(
      toB,
      `[Message from tab ${a.tab} (built-in · tab ${a.tab}), kind: task. Tab ${a.tab} waits for your report: when the task is done, send it with tabs_send to tab "${a.tab}", kind "report".]\n\n${task}`,
    );

    const vote = await d.json('POST', `/session/${a.sessionId}/permission/${question!.requestId}`, {
      outcome: { outcome: 'selected', optionId: 'proceed_once' },
      answers: { '0': 'It has; read your inbox.' },
    });
    assert.equal(vote.status, 200);
    await until(async () => {
      const status = await d.json('GET', `/session/${a.sessionId}/status`);
      return modelA.requests.length === 4 && status.body.hasActivePrompt === false;
    }, 'the first tab to finish');

    // What the first agent's model was told when it read its inbox.
    const inboxResult = lastMessages(modelA).find((m) => m.role === 'tool' && m.tool_call_id === 'read-inbox')!;
    assert.match(String(inboxResult.content), new RegExp(`\\[Message from tab ${b.tab} \\(built-in · tab ${b.tab}\\), kind: report\\. It reports on a task given earlier`));
    assert.ok(String(inboxResult.content).includes(report));
    const sendResult = modelA.requests[1]!.body.messages.find((m: { tool_call_id?: string }) => m.tool_call_id === 'send-task');
    assert.match(String(sendResult.content), new RegExp(`Delivered: tab ${b.tab} gets it as its next prompt now`));
    assert.deepEqual((await askModule(a.socket, { token: a.token, op: 'peek' })).messages, [], 'the report was taken');
    assert.equal(modelB.requests.length, 2, 'the second tab ran exactly one turn: the task');

    // Both transcripts show the exchange, as the client API pages them.
    const moduleRecords = async (sessionId: string) => {
      const page = await d.json('GET', `/session/${sessionId}/transcript?limit=500`);
      assert.equal(page.status, 200);
      return (page.body.events as { type: string; data: Record<string, unknown> }[])
        .filter((e) => e.type === 'module_message')
        .map(({ data }) => ({ direction: data.direction, kind: data.kind, text: data.text, ok: data.ok, delivery: data.delivery }));
    };
    assert.deepEqual(await moduleRecords(a.sessionId), [
      { direction: 'out', kind: 'task', text: task, ok: true, delivery: undefined },
      { direction: 'in', kind: 'report', text: report, ok: undefined, delivery: 'inbox' },
    ]);
    assert.deepEqual(await moduleRecords(b.sessionId), [
      { direction: 'in', kind: 'task', text: task, ok: undefined, delivery: 'prompt' },
      { direction: 'out', kind: 'report', text: report, ok: true, delivery: undefined },
    ]);

    // And the first session's event stream carries both, as the official client reads it.
    const client = new DaemonClient({ baseUrl: d.url });
    const abort = new AbortController();
    const types: string[] = [];
    for await (const e of client.subscribeEvents(a.sessionId, { lastEventId: 0, signal: abort.signal })) {
      if (e.type === 'replay_complete') break;
      if (e.type === 'module_message') types.push(`${(e.data as { direction: string }).direction}:${(e.data as { kind: string }).kind}`);
    }
    abort.abort();
    assert.deepEqual(types, ['out:task', 'in:report']);
  });
});

describe('undelivered messages across a daemon restart', () => {
  let model: ScriptedModel;
  let home: string;
  let workspace: string;
  before(async () => {
    model = await startScriptedModel({ port: 0 });
    home = tempDir('berth-home-');
    workspace = tempDir('berth-ws-');
  });
  after(async () => {
    await model.close();
    removeDir(home);
    removeDir(workspace);
  });

  const start = () =>
    startTestDaemon({ home, workspace, keep: true, config: { modelServices: [service('m', model)], sessionIdleTimeoutMs: 0 } });

  it('keeps a message that waited for a busy tab, and offers it as the next prompt once the session is loaded again', async () => {
    let d = await start();
    let a: OpenedTab;
    let b: OpenedTab;
    const text = 'Review my parser when you can.';
    try {
      a = await openTab(d);
      b = await openTab(d);
      model.enqueue({ kind: 'hang' });
      await d.json('POST', `/session/${b.sessionId}/prompt`, { prompt: [{ type: 'text', text: 'Work for a long time.' }] });
      await model.waitForRequests(1);
      const sent = await askModule(a.socket, { token: a.token, op: 'send', tab: b.tab, text, kind: 'question' });
      assert.match(sent.text, new RegExp(`Waiting: tab ${b.tab} is working`));
    } finally {
      await d.close();
    }

    d = await start();
    try {
      const caps = await d.json('GET', '/capabilities');
      assert.equal(caps.body.workspaces[0].moduleSocket, b.socket, 'the socket is at the same place');
      const peeked = await askModule(b.socket, { token: b.token, op: 'peek' });
      assert.deepEqual(peeked.messages!.map((m) => [m.tab, m.kind, m.text]), [[a.tab, 'question', text]]);
      const list = await askModule(b.socket, { token: b.token, op: 'list' });
      assert.equal(list.code, 'session_not_found', 'a session that is not open cannot list or send');
      assert.equal(model.requests.length, 1, 'nothing is delivered to a session that is not open');

      const loaded = await d.json('POST', `/session/${b.sessionId}/load`, {});
      assert.equal(loaded.status, 200, JSON.stringify(loaded.body));
      await model.waitForRequests(2);
      assert.equal(
        lastUserText(model.requests[1]!.body),
        `[Message from tab ${a.tab} (built-in · tab ${a.tab}), kind: question. Tab ${a.tab} waits for your answer: reply with tabs_send to tab "${a.tab}", kind "answer".]\n\n${text}`,
      );
      assert.deepEqual((await askModule(b.socket, { token: b.token, op: 'peek' })).messages, [], 'it left the inbox');
      assert.equal((await d.json('GET', `/session/${b.sessionId}/module`)).body.tab, b.tab, 'the session keeps its tab number');
    } finally {
      await d.close();
    }
  });
});
