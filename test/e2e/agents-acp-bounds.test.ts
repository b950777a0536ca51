import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TEST_AGENT_ID, withAgents } from '../support/acp-stack.js';
import { agentPids, running } from '../support/agent-pids.js';
import { startTestDaemon } from '../support/daemon.js';
import { until } from '../support/module.js';
import { EventReader, newSession, submit, type WireEvent } from '../support/session-client.js';

/** Bounds on external agents (issue 12): the longest message an agent may send, and how long an idle agent process lives. */

const pidsOf = (home: string) => agentPids(home, 'acp-agent.mjs');

const said = (events: readonly WireEvent[], promptId: string): string =>
  events
    .filter((e) => e.type === 'session_update' && e.promptId === promptId && e.data.update.sessionUpdate === 'agent_message_chunk')
    .map((e) => e.data.update.content.text)
    .join('');

describe('external agent bounds', () => {
  it('stops an agent that sends a line over --agent-max-message-bytes: the turn and the session say why, the daemon carries on', async () => {
    const d = await startTestDaemon(withAgents({ maxMessageBytes: 64 * 1024 }));
    try {
      const limits = (await d.json('GET', '/capabilities')).body.limits;
      assert.equal(limits.agentMaxMessageBytes, 64 * 1024);
      const { sessionId } = await newSession(d, { modelServiceId: TEST_AGENT_ID });
      const events = await EventReader.open(d, sessionId);
      const fits = await submit(d, sessionId, 'huge 1000');
      await events.terminal(fits.body.promptId);
      assert.equal(said(events.seen, fits.body.promptId), `${'x'.repeat(1000)}still here`, 'a message inside the bound passes');
      const [pid] = pidsOf(d.home);

      const over = await submit(d, sessionId, 'huge 100000');
      const rest = await events.rest();
      const error = rest.find((e) => e.type === 'turn_error' && e.data.promptId === over.body.promptId);
      assert.ok(error, rest.map((e) => e.type).join(','));
      assert.equal(error.data.code, 'agent_protocol_error');
      assert.match(error.data.error ?? error.data.message, /longer than 65536 bytes \(--agent-max-message-bytes\)/);
      assert.equal(said(rest, over.body.promptId).includes('x'.repeat(1000)), false, 'nothing of the long line reached the stream');
      const died = rest.at(-1)!;
      assert.equal(died.type, 'session_died');
      assert.equal(died.data.reason, 'agent_protocol_error');
      await until(() => !running(pid!), 'the agent process stopped');

      assert.equal((await d.json('GET', '/health')).status, 200);
      const next = await submit(d, sessionId, 'say back again');
      assert.equal(next.status, 202, JSON.stringify(next.body));
      const again = await EventReader.open(d, sessionId);
      await again.terminal(next.body.promptId);
      assert.equal(said(again.seen, next.body.promptId), 'back again', 'the next prompt runs on a new process');
      again.close();
    } finally {
      await d.close();
    }
  });

  it('stops an agent process idle past --agent-idle-ms, and the next prompt starts one that loads the same agent session', async () => {
    const d = await startTestDaemon(withAgents({ idleMs: 300 }));
    try {
      assert.equal((await d.json('GET', '/capabilities')).body.limits.agentIdleMs, 300);
      const { sessionId } = await newSession(d, { modelServiceId: TEST_AGENT_ID });
      const events = await EventReader.open(d, sessionId);
      const first = await submit(d, sessionId, 'say before the nap');
      await events.terminal(first.body.promptId);
      const [pid] = pidsOf(d.home);
      assert.ok(pid !== undefined && running(pid), 'the agent process runs after its turn');
      await until(() => !running(pid) && pidsOf(d.home).length === 0, 'the idle agent process stopped');

      const status = await d.json('GET', `/session/${sessionId}/status`);
      assert.equal(status.status, 200, 'the session itself stays open');
      const next = await submit(d, sessionId, 'history?');
      await events.terminal(next.body.promptId);
      assert.equal(said(events.seen, next.body.promptId), 'history say before the nap | history?', 'the new process loaded the agent session');
      const [restarted] = pidsOf(d.home);
      assert.ok(restarted !== undefined && restarted !== pid, 'a new agent process');
      assert.equal(events.seen.some((e) => e.type === 'session_died'), false, 'an idle stop is not a death');
      events.close();
    } finally {
      await d.close();
    }
  });
});
