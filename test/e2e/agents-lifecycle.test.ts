import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TEST_AGENT_ID, testAgentSpec, withAgents } from '../support/acp-stack.js';
import { agentPids as pidsOf, running } from '../support/agent-pids.js';
import { startTestDaemon } from '../support/daemon.js';
import { tempDir } from '../support/tmp.js';

const agentPids = async (home: string) => pidsOf(home, 'acp-agent.mjs');
import { EventReader, createSession, eventually, newSession, submit, type WireEvent } from '../support/session-client.js';

/** Lifecycle of external agents (issue 12): start bound, death mid-turn, memory budget, default agent, shutdown. */

const said = (events: readonly WireEvent[], promptId: string): string =>
  events
    .filter((e) => e.type === 'session_update' && e.promptId === promptId && e.data.update.sessionUpdate === 'agent_message_chunk')
    .map((e) => e.data.update.content.text)
    .join('');

describe('external agent lifecycle', () => {
  it('answers 504 init_timeout when the agent does not start in time, and kills it', async () => {
    const d = await startTestDaemon(
      withAgents({ agents: [testAgentSpec({ env: { ACP_TEST_START_DELAY_MS: '60000' } })], startTimeoutMs: 1500 }),
    );
    try {
      const res = await createSession(d, { sessionScope: 'thread', modelServiceId: TEST_AGENT_ID });
      assert.equal(res.status, 504, JSON.stringify(res.body));
      assert.equal(res.body.code, 'init_timeout');
      assert.equal(res.body.errorKind, 'init_timeout');
      assert.deepEqual(await agentPids(d.home), [], 'the slow agent was killed');
    } finally {
      await d.close();
    }
  });

  it('names the command when the agent is not installed', async () => {
    const d = await startTestDaemon(withAgents({ agents: [testAgentSpec({ command: '/nonexistent/acp-agent' })] }));
    try {
      const res = await createSession(d, { sessionScope: 'thread', modelServiceId: TEST_AGENT_ID });
      assert.equal(res.status, 503, JSON.stringify(res.body));
      assert.equal(res.body.code, 'agent_unavailable');
      assert.match(res.body.error, /\/nonexistent\/acp-agent/);
    } finally {
      await d.close();
    }
  });

  it('ends a turn whose agent exits with turn_error, then session_died, and the next prompt resumes on a new process', async () => {
    // An agent that cannot session/load: the new process is given the transcript instead.
    const d = await startTestDaemon(withAgents({ agents: [testAgentSpec({ env: { ACP_TEST_NO_LOAD: '1' } })] }));
    try {
      const { sessionId } = await newSession(d, { modelServiceId: TEST_AGENT_ID });
      const events = await EventReader.open(d, sessionId);
      const first = await submit(d, sessionId, 'say before');
      await events.terminal(first.body.promptId);
      const dying = await submit(d, sessionId, 'die');
      const rest = await events.rest();
      const types = rest.map((e) => e.type);
      const errorAt = rest.findIndex((e) => e.type === 'turn_error' && e.data.promptId === dying.body.promptId);
      assert.ok(errorAt >= 0, types.join(','));
      assert.equal(rest[errorAt]!.data.code, 'agent_exited');
      const died = rest.at(-1)!;
      assert.equal(died.type, 'session_died', 'session_died ends the stream');
      assert.ok(errorAt < rest.length - 1);
      assert.equal(died.data.exitCode, 3);

      const next = await submit(d, sessionId, 'seed?');
      assert.equal(next.status, 202, JSON.stringify(next.body));
      const again = await EventReader.open(d, sessionId);
      await again.terminal(next.body.promptId);
      assert.equal(said(again.seen, next.body.promptId), 'seeded: yes', 'the new agent session was given the earlier conversation');
      const seeded = again.seen.find((e) => e.type === 'session_update' && e.data.update._meta?.berth?.restoredBy === 'transcript_seed');
      assert.ok(seeded, 'the stream says the context came back by seeding the transcript');
      again.close();
    } finally {
      await d.close();
    }
  });

  it('loads an external-agent session after a daemon restart: its turns are in the transcript and export, and the agent loads its own earlier session', async () => {
    const home = tempDir('berth-home-');
    const workspace = tempDir('berth-ws-');
    const first = await startTestDaemon(withAgents({}, { home, workspace, keep: true }));
    let sessionId: string;
    try {
      ({ sessionId } = await newSession(first, { modelServiceId: TEST_AGENT_ID }));
      const events = await EventReader.open(first, sessionId);
      const res = await submit(first, sessionId, 'say before the restart');
      await events.terminal(res.body.promptId);
      events.close();
    } finally {
      await first.close();
    }
    const d = await startTestDaemon(withAgents({}, { home, workspace }));
    try {
      const loaded = await d.json('POST', `/session/${sessionId}/load`, {});
      assert.equal(loaded.status, 200, JSON.stringify(loaded.body));
      const transcript = await d.fetch(`/session/${sessionId}/transcript`);
      assert.match(await transcript.text(), /before the restart/);
      const exported = await d.fetch(`/session/${sessionId}/export?format=md`);
      assert.match(await exported.text(), /before the restart/);
      const context = await d.json('GET', `/session/${sessionId}/context`);
      assert.equal(context.body.state._meta.harness, TEST_AGENT_ID);
      const events = await EventReader.open(d, sessionId, { lastEventId: null });
      const res = await submit(d, sessionId, 'history?');
      await events.terminal(res.body.promptId);
      assert.equal(said(events.seen, res.body.promptId), 'history say before the restart | history?', 'the agent loaded its own session');
      const notice = events.seen.find((e) => e.type === 'session_update' && e.data.update._meta?.berth?.restoredBy);
      assert.equal(notice?.data.update._meta.berth.restoredBy, 'agent_load');
      events.close();
    } finally {
      await d.close();
    }
  });

  it('runs the sessions of one workspace on one agent process, and its death ends each of them with session_died', async () => {
    const d = await startTestDaemon(withAgents());
    try {
      const a = await newSession(d, { modelServiceId: TEST_AGENT_ID });
      const b = await newSession(d, { modelServiceId: TEST_AGENT_ID });
      const eventsA = await EventReader.open(d, a.sessionId);
      const eventsB = await EventReader.open(d, b.sessionId);
      for (const [s, events] of [[a, eventsA], [b, eventsB]] as const) {
        const res = await submit(d, s.sessionId, `say I am ${s.sessionId}`);
        await events.terminal(res.body.promptId);
        assert.equal(said(events.seen, res.body.promptId), `I am ${s.sessionId}`, 'each session hears only its own agent session');
      }
      assert.equal((await agentPids(d.home)).length, 1, 'one agent process for both sessions');
      await submit(d, a.sessionId, 'die');
      assert.equal((await eventsA.rest()).at(-1)!.type, 'session_died');
      assert.equal((await eventsB.rest()).at(-1)!.type, 'session_died');
    } finally {
      await d.close();
    }
  });

  it('refuses new agent sessions with 503 once agent processes use the memory budget', async () => {
    const d = await startTestDaemon(withAgents({ memoryMb: 1 }));
    try {
      const first = await createSession(d, { sessionScope: 'thread', modelServiceId: TEST_AGENT_ID });
      assert.equal(first.status, 200, JSON.stringify(first.body));
      const second = await createSession(d, { sessionScope: 'thread', modelServiceId: TEST_AGENT_ID });
      assert.equal(second.status, 503, JSON.stringify(second.body));
      assert.equal(second.body.code, 'agent_memory_exhausted');
      assert.match(second.body.error, /--agent-memory-mb/);
    } finally {
      await d.close();
    }
  });

  it('runs the --agent default for a session that names nothing, and shutdown kills every agent process', async () => {
    const d = await startTestDaemon(withAgents({ defaultAgent: TEST_AGENT_ID }));
    let pids: number[] = [];
    try {
      const { sessionId } = await newSession(d);
      const events = await EventReader.open(d, sessionId);
      const res = await submit(d, sessionId, 'say default agent');
      await events.terminal(res.body.promptId);
      assert.equal(said(events.seen, res.body.promptId), 'default agent');
      events.close();
      pids = await agentPids(d.home);
      assert.ok(pids.length >= 1, 'the agent process runs');
    } finally {
      await d.close();
    }
    // SIGKILL went to the whole group before close() returned; the kernel ends each process as it gets there.
    for (const pid of pids) await eventually(async () => running(pid), (r) => !r);
  });
});
