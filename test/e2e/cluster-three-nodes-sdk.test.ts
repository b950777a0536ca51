import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { DaemonClient, type DaemonEvent } from '@qwen-code/sdk/daemon';
import { clusterMissing, CLUSTER_TOKEN, startClusterNodes, type ClusterNodes } from '../support/cluster-nodes.js';
import { writeReply } from '../support/model-script.js';
import { EventLog, ofType, terminalOf, text } from '../support/sdk.js';

/**
 * A client of a load-balanced cluster, with the official SDK: three `berth serve` nodes on one
 * PostgreSQL and one NATS (docs/cluster-bus.md). The session is created through node 1, its
 * events are followed through node 2, its permission requests are answered through node 3,
 * and prompts go through any of them: the client never learns which node runs the session.
 */
const missing = clusterMissing();

let cluster: ClusterNodes;
const clients: DaemonClient[] = [];

before(async () => {
  if (missing) return;
  cluster = await startClusterNodes(['n1', 'n2', 'n3'], 1500);
  for (const id of ['n1', 'n2', 'n3']) clients.push(new DaemonClient({ baseUrl: cluster.node(id).url, token: CLUSTER_TOKEN }));
});
after(async () => {
  await cluster?.close();
});

/** A prompt sent without waiting for its turn: a 202 daemon answers with its prompt id. */
async function promptOn(client: DaemonClient, sessionId: string, words: string): Promise<{ promptId: string }> {
  const accepted = await client.promptNonBlocking(sessionId, { prompt: text(words) });
  assert.ok('promptId' in accepted && typeof accepted.promptId === 'string', 'a 202 daemon answers with a prompt id');
  return { promptId: accepted.promptId };
}

const optionOf = (request: DaemonEvent, kind: string): string => (request.data as any).options.find((o: { kind: string }) => o.kind === kind).optionId;

test('the SDK creates on one node, follows on another and votes on a third: an allowed write lands once, a rejected one never', { skip: missing, timeout: 120_000 }, async () => {
  const [one, two, three] = clients as [DaemonClient, DaemonClient, DaemonClient];
  const { model, workspace } = cluster.stack;
  const session = await one.createOrAttachSession({ workspaceCwd: workspace, sessionScope: 'thread' });
  const log = new EventLog((signal) => two.subscribeEvents(session.sessionId, { signal, lastEventId: 0 }));
  try {
    model.enqueue(writeReply('allowed.txt', 'allowed\n'), { kind: 'reply', text: 'Wrote it.' });
    const first = await promptOn(three, session.sessionId, 'Write allowed.txt');
    const asked = await log.waitFor(ofType('permission_request'));
    assert.equal(existsSync(join(workspace, 'allowed.txt')), false, 'nothing is written before the vote');
    const requestId = (asked.data as any).requestId;
    const allow = { outcome: { outcome: 'selected' as const, optionId: optionOf(asked, 'allow_once') } };
    assert.equal(await three.respondToSessionPermission(session.sessionId, requestId, allow), true);
    const done = await log.waitFor(terminalOf(first.promptId));
    assert.equal(done.type, 'turn_complete', JSON.stringify(done.data));
    assert.equal(readFileSync(join(workspace, 'allowed.txt'), 'utf8'), 'allowed\n', 'the allowed write happened once');

    model.enqueue(writeReply('rejected.txt', 'rejected\n'), { kind: 'reply', text: 'Left it alone.' });
    const second = await promptOn(one, session.sessionId, 'Write rejected.txt');
    const askedAgain = await log.waitFor((e) => e.type === 'permission_request' && (e.data as any).requestId !== requestId);
    const reject = { outcome: { outcome: 'selected' as const, optionId: optionOf(askedAgain, 'reject_once') } };
    assert.equal(await three.respondToSessionPermission(session.sessionId, (askedAgain.data as any).requestId, reject), true);
    const rejected = await log.waitFor(terminalOf(second.promptId));
    assert.equal(rejected.type, 'turn_complete', JSON.stringify(rejected.data));
    assert.equal(existsSync(join(workspace, 'rejected.txt')), false, 'the rejected write did not happen');

    // The follower on node 2 saw both whole turns, in order, each event once.
    assert.equal(log.ofType('turn_complete').length, 2);
    const ids = log.events.map((e) => e.id).filter((id): id is number => id !== undefined);
    assert.deepEqual(ids, [...ids].sort((x, y) => x - y), 'ids arrive in order');
    assert.equal(new Set(ids).size, ids.length, 'no event twice');
    assert.equal(log.error, undefined);
  } finally {
    await log.close();
  }
});
