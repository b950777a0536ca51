import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { askModule } from '../../src/modules/index.js';
import { lastUserText, startScriptedModel, type ScriptedModel } from '../../src/devtools/scripted-model/index.js';
import { TEST_AGENT_ID, withAgents } from '../support/acp-stack.js';
import { startTestDaemon, type TestDaemon } from '../support/daemon.js';
import { openTab, until } from '../support/module.js';
import { EventReader, submit, type WireEvent } from '../support/session-client.js';

/** The module protocol for external agents (issue 12): an agent tab and a built-in tab message each other. */

const said = (events: readonly WireEvent[], promptId: string): string =>
  events
    .filter((e) => e.type === 'session_update' && e.promptId === promptId && e.data.update.sessionUpdate === 'agent_message_chunk')
    .map((e) => e.data.update.content.text)
    .join('');

describe('an external agent tab on the module protocol', () => {
  let model: ScriptedModel;
  let d: TestDaemon;
  before(async () => {
    model = await startScriptedModel({ port: 0 });
    const service = { id: 'b', baseUrl: model.url, models: [{ id: 'scripted-model' }], defaultModel: 'scripted-model' };
    d = await startTestDaemon(withAgents({}, { config: { modelServices: [service], sessionIdleTimeoutMs: 0 } }));
  });
  after(async () => {
    await d.close();
    await model.close();
  });

  /** An agent session whose token the test has not asked for (GET /module would issue one). */
  const createAgentTab = async () => {
    const created = await d.json('POST', '/session', { sessionScope: 'thread', modelServiceId: TEST_AGENT_ID, approvalMode: 'yolo' });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    return { sessionId: created.body.sessionId as string };
  };

  it('lists the built-in tab, hands it a task, and gets its report back as its next prompt', async () => {
    const agent = await openTab(d, { modelServiceId: TEST_AGENT_ID, approvalMode: 'yolo' });
    const builtin = await openTab(d, { modelServiceId: 'b', approvalMode: 'yolo' });
    const events = await EventReader.open(d, agent.sessionId);
    const turn = async (text: string) => {
      const res = await submit(d, agent.sessionId, text);
      assert.equal(res.status, 202, JSON.stringify(res.body));
      await events.terminal(res.body.promptId);
      return said(events.seen, res.body.promptId);
    };

    const env = await turn('env');
    assert.match(env, / berth=BERTH_MODULE_SOCKET,BERTH_MODULE_TOKEN /, 'the module variables, and no other BERTH_*');

    const listed = await turn('tabs list');
    assert.match(listed, /^module ok: /);
    assert.ok(listed.includes(`${builtin.tab}=built-in`), listed);
    assert.ok(listed.endsWith(` you: ${agent.tab}`), listed);

    const report = 'All 12 tests pass.';
    model.enqueue(
      { kind: 'reply', toolCalls: [{ id: 'send-report', name: 'tabs_send', arguments: { tab: agent.tab, kind: 'report', text: report } }] },
      { kind: 'reply', text: 'Reported.' },
    );
    const sent = await turn(`tabs send ${builtin.tab} Please run the tests and report.`);
    assert.match(sent, /^module ok: /);

    // The built-in tab got the task as its prompt, under a header naming the agent tab by its harness.
    await until(() => model.requests.length > 0, 'the built-in tab prompted');
    const toBuiltin = lastUserText(model.requests[0]!.body);
    assert.ok(toBuiltin.startsWith(`[Message from tab ${agent.tab} (${TEST_AGENT_ID} · `), toBuiltin);
    assert.ok(toBuiltin.endsWith('Please run the tests and report.'), toBuiltin);

    // Its report comes back to the agent tab as its next prompt.
    const got = await events.until((e) => e.type === 'session_update' && String(e.data.update.content?.text ?? '').startsWith('got: '));
    const text = got.data.update.content.text as string;
    assert.ok(text.startsWith(`got: [Message from tab ${builtin.tab} (built-in · `), text);
    assert.ok(text.endsWith(report), text);
    events.close();
  });

  it('the agent process token stops speaking for a tab once its session closes, and the owner still gets a token of its own', async () => {
    const agent = await createAgentTab();
    const events = await EventReader.open(d, agent.sessionId);
    const res = await submit(d, agent.sessionId, 'tabs token');
    await events.terminal(res.body.promptId);
    const token = said(events.seen, res.body.promptId);
    const socket = (await d.json('GET', '/capabilities')).body.workspaces[0].moduleSocket as string;
    const asked = await askModule(socket, { token, op: 'list', session: agent.sessionId });
    assert.equal(asked.ok, true, asked.text);
    assert.equal(asked.you?.tab !== undefined, true);

    // The agent's token is not one the owner was shown: the owner is shown one of the tab's own.
    const access = await d.json('GET', `/session/${agent.sessionId}/module`);
    assert.equal(typeof access.body.token, 'string');
    assert.notEqual(access.body.token, token);
    // Rotating the tab's tokens does not cut its agent off.
    await d.json('POST', `/session/${agent.sessionId}/module/token`);
    assert.equal((await askModule(socket, { token, op: 'list', session: agent.sessionId })).ok, true);

    events.close();
    const closed = await d.json('DELETE', `/session/${agent.sessionId}`);
    assert.equal(closed.status, 204);
    const after = await askModule(socket, { token, op: 'list', session: agent.sessionId });
    assert.equal(after.ok, false);
    assert.equal(after.code, 'unauthorized');
  });
});
