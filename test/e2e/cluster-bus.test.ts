import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connectNats } from '../../src/cluster/nats-transport.js';
import type { SessionLocation, SessionPlacement } from '../../src/cluster/placement.js';
import { httpSubject } from '../../src/cluster/subjects.js';
import { natsMissing, startNats, type NatsServer } from '../support/nats.js';
import { postgresMissing, startPostgres, type PostgresServer } from '../support/postgres.js';
import { EventReader, newSession, submit } from '../support/session-client.js';
import { startStack, type Stack } from '../support/stack.js';

/**
 * Issue 18, events and requests on NATS: two real daemons on one nats-server, each on a
 * PostgreSQL store. Node B's placement says node A runs the session (the lease table's
 * answer, injected here), so B forwards every request for it to A and streams its events
 * from A's ring and A's subject. Each node has its own database in this test: sessions are
 * not yet owned per node, and one database refuses a second daemon until they are. The bus is
 * given resolved (`bus`), as an embedder gives it: the injected placement names the node, so no
 * `--node-id` (which `--bus` requires) takes leases here.
 */
const missing = natsMissing() ?? postgresMissing();
const TOKEN = 'cluster-test-token';

/** A placement that says `owner` runs the sessions in `remote`, and every other session is local. */
function placementOf(nodeId: string, owner: string, remote: Set<string>): SessionPlacement {
  return {
    nodeId,
    locate: async (sessionId): Promise<SessionLocation> => (remote.has(sessionId) ? { kind: 'remote', nodeId: owner } : { kind: 'local' }),
  };
}

describe('two nodes on one NATS bus', { skip: missing, timeout: 180_000 }, () => {
  let pg: PostgresServer;
  let nats: NatsServer;
  let a: Stack;
  let b: Stack;
  const onA = new Set<string>();

  before(async () => {
    [pg, nats] = await Promise.all([startPostgres(), startNats()]);
    const start = async (nodeId: string, placement: SessionPlacement) =>
      startStack({ placement, config: { token: TOKEN, store: { engine: 'postgres', url: await pg.createDatabase() }, bus: nats.url } });
    a = await start('a', placementOf('a', 'a', new Set()));
    b = await start('b', placementOf('b', 'a', onA));
  });
  after(async () => {
    await b?.close();
    await a?.close();
    await Promise.all([nats?.stop(), pg?.stop()]);
  });

  test('a prompt sent to the other node runs on the owner, and that node streams its events', async () => {
    const { sessionId, clientId } = await newSession(a.daemon);
    onA.add(sessionId);
    const reader = await EventReader.open(b.daemon, sessionId, { lastEventId: 0 });
    try {
      a.model.enqueue({ kind: 'reply', text: 'Hello from node A.' });
      const accepted = await submit(b.daemon, sessionId, 'Say hello', {}, { 'x-qwen-client-id': clientId });
      assert.equal(accepted.status, 202);
      assert.equal(reader.response.headers.get('x-qwen-event-epoch'), accepted.body.eventEpoch);
      const terminal = await reader.terminal(accepted.body.promptId);
      assert.equal(terminal.type, 'turn_complete');
      const ids = reader.seen.map((e) => e.id).filter((id) => id !== undefined);
      assert.deepEqual(ids, [...ids].sort((x, y) => x! - y!), 'ids arrive in order');
      assert.equal(new Set(ids).size, ids.length, 'no event twice');
    } finally {
      reader.close();
    }
    const viaB = await b.daemon.json('GET', `/session/${sessionId}/status`);
    const onOwner = await a.daemon.json('GET', `/session/${sessionId}/status`);
    assert.equal(viaB.status, 200);
    assert.deepEqual(viaB.body, onOwner.body);
  });

  test('the owner’s refusals come back with its status and code', async () => {
    const { sessionId } = await newSession(a.daemon);
    onA.add(sessionId);
    const stranger = { 'x-qwen-client-id': 'not-a-client' };
    const direct = await a.daemon.json('DELETE', `/session/${sessionId}/pending-prompts/no-such-prompt`, undefined, stranger);
    const forwarded = await b.daemon.json('DELETE', `/session/${sessionId}/pending-prompts/no-such-prompt`, undefined, stranger);
    assert.equal(forwarded.status, direct.status);
    assert.equal(forwarded.body.code, direct.body.code);
    const badBody = await b.daemon.json('POST', `/session/${sessionId}/prompt`, { prompt: 'not blocks' });
    const badDirect = await a.daemon.json('POST', `/session/${sessionId}/prompt`, { prompt: 'not blocks' });
    assert.equal(badBody.status, 400);
    assert.equal(badBody.body.code, badDirect.body.code);
    // A mid-turn message is a mutation like a prompt: answered by the owner, whichever node it reaches.
    const idle = await b.daemon.json('POST', `/session/${sessionId}/mid-turn-message`, { message: 'hello' });
    assert.deepEqual(idle.body, { accepted: false, reason: 'session_idle' });
    const badMidTurn = await b.daemon.json('POST', `/session/${sessionId}/mid-turn-message`, { message: ' ' });
    assert.equal(badMidTurn.body.code, 'invalid_mid_turn_message');
    const noToken = await fetch(`${b.daemon.url}/session/${sessionId}/status`);
    assert.equal(noToken.status, 401);
  });

  test('a request put on the bus straight to the owner is refused there without the owner token', async () => {
    const { sessionId } = await newSession(a.daemon);
    const intruder = await connectNats(nats.url, 'not-a-node');
    const { token: channelToken } = await a.daemon.daemon.core.tokens.createChannelToken(a.daemon.daemon.core.workspaces.list()[0]!.id);
    const ask = async (headers: Record<string, string>) => {
      const request = { method: 'GET', url: `/session/${sessionId}/status`, headers };
      const data = await intruder.request(httpSubject('a'), JSON.stringify(request), 5_000);
      const answer = JSON.parse(Buffer.from(data).toString('utf8')) as { status: number; body: string };
      return { status: answer.status, body: JSON.parse(Buffer.from(answer.body, 'base64').toString('utf8')) };
    };
    try {
      assert.equal((await ask({})).status, 401);
      assert.equal((await ask({ authorization: 'Bearer not-the-token' })).status, 401);
      const channel = await ask({ authorization: `Bearer ${channelToken}` });
      assert.deepEqual([channel.status, channel.body.code], [403, 'token_scope_denied']);
      const owner = await ask({ authorization: `Bearer ${TOKEN}` });
      assert.equal(owner.status, 200);
      assert.equal(owner.body.sessionId, sessionId);
    } finally {
      await intruder.close();
    }
  });

  test('a client resuming on the other node with an old epoch is told to resync', async () => {
    const { sessionId } = await newSession(a.daemon);
    onA.add(sessionId);
    const reader = await EventReader.open(b.daemon, sessionId, { lastEventId: 3, headers: { 'x-qwen-event-epoch': 'an-epoch-of-before' } });
    try {
      const resync = await reader.type('state_resync_required');
      assert.equal(resync.data.reason, 'epoch_reset');
      await reader.type('replay_complete');
    } finally {
      reader.close();
    }
  });

  test('deep health says the bus is reachable', async () => {
    const health = await b.daemon.json('GET', '/health?deep=1');
    assert.equal(health.body.busReachable, true);
  });

  test('when the owner stops, the other node ends its streams and answers 503 owner_unreachable', async () => {
    const { sessionId } = await newSession(a.daemon);
    onA.add(sessionId);
    const reader = await EventReader.open(b.daemon, sessionId, { lastEventId: 0 });
    await reader.type('replay_complete');
    await a.close();
    await reader.rest();
    const status = await b.daemon.json('GET', `/session/${sessionId}/status`);
    assert.equal(status.status, 503);
    assert.equal(status.body.code, 'owner_unreachable');
    assert.equal(status.headers.get('retry-after'), '1');
  });
});
