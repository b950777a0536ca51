import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { AUTH, clusterMissing, startClusterNodes, type ClusterNodes } from '../support/cluster-nodes.js';
import { call } from '../support/spawned-client.js';

/**
 * A rolling restart under steady load (docs/cluster-leases.md, Drain): three nodes, six
 * sessions each getting prompts one after another through random nodes, as a well-behaved
 * client sends them (a refused connection or a retryable 503 is tried again, after
 * `Retry-After`, on another node). Nodes 1, 2 and 3 are stopped with SIGTERM in turn and
 * started again on the same id. No session is lost, and no accepted prompt is lost silently:
 * every one ends in `turn_complete` or in a `turn_error` whose code the drain documents.
 */
const missing = clusterMissing();
const IDS = ['n1', 'n2', 'n3'];
const SESSIONS = 6;
/** The codes a turn cut by a drain or a takeover ends with (docs/cluster-leases.md). */
const HANDOVER_CODES = new Set(['daemon_shutdown', 'daemon_lost']);
/** A worker waiting for a turn's end gives up after this many looks and counts the prompt as unsettled. */
const SETTLE_LOOKS = 400;
/** Each answer streams for a moment (four chunks 50 ms apart), so a drain catches turns running. */
const SLOW_REPLY = { kind: 'reply' as const, text: 'Answered slowly.', chunkChars: 4, delayMs: 50 };

let cluster: ClusterNodes;
const down = new Set<string>();

before(async () => {
  if (missing) return;
  cluster = await startClusterNodes(IDS, 1500);
});
after(async () => {
  await cluster?.close();
});

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const anyNode = () => {
  const up = IDS.filter((id) => !down.has(id));
  return cluster.node(up[Math.floor(Math.random() * up.length)]!).url;
};

interface Counts {
  sent: number;
  retries: Map<string, number>;
}

/** One request as a well-behaved client makes it: a dead connection or a retryable 503 is retried on a random node. */
async function request(counts: Counts, method: string, path: string, body?: unknown) {
  for (;;) {
    const via = anyNode();
    const res = await call(via, method, path, body, AUTH).catch((err: Error) => ({ status: 0, body: { code: `connection: ${err.message}`, retryable: true } }));
    if (res.status !== 503 && res.status !== 0) return { ...res, via };
    assert.equal(res.body?.retryable, true, `a 503 is retryable: ${JSON.stringify(res.body)}`);
    counts.retries.set(res.body.code, (counts.retries.get(res.body.code) ?? 0) + 1);
    await pause(res.status === 0 ? 50 : 1000 * Number(res.body.retryAfterSeconds ?? 1));
  }
}

/** The session's whole stored transcript (one page holds it in this test). */
async function transcript(counts: Counts, sessionId: string): Promise<any[]> {
  const page = await request(counts, 'GET', `/session/${sessionId}/transcript?limit=500`);
  assert.equal(page.status, 200, JSON.stringify(page.body));
  assert.ok(page.body.events.length < 500, 'one page holds the transcript');
  return page.body.events;
}

const terminalOf = (events: any[], promptId: string) => events.filter((e) => (e.type === 'turn_complete' || e.type === 'turn_error') && e.data.promptId === promptId);

/** Prompts `sessionId` one turn after another until `stop` is set; returns the accepted prompt ids and the unsettled ones. */
async function drive(counts: Counts, sessionId: string, stop: { done: boolean }) {
  const accepted: string[] = [];
  let n = 0;
  while (!stop.done) {
    const res = await request(counts, 'POST', `/session/${sessionId}/prompt`, { prompt: [{ type: 'text', text: `turn ${++n} of ${sessionId}` }] });
    assert.equal(res.status, 202, `through ${res.via}: ${JSON.stringify(res.body)}`);
    counts.sent++;
    accepted.push(res.body.promptId);
    for (let look = 0; look < SETTLE_LOOKS; look++) {
      if (terminalOf(await transcript(counts, sessionId), res.body.promptId).length > 0) break;
      await pause(25);
    }
  }
  return accepted;
}

test('a rolling restart of three nodes under steady load loses no session and no accepted prompt', { skip: missing, timeout: 300_000 }, async () => {
  const counts: Counts = { sent: 0, retries: new Map() };
  cluster.stack.model.enqueue(...Array.from({ length: 1000 }, () => SLOW_REPLY));
  const sessions: string[] = [];
  for (let i = 0; i < SESSIONS; i++) {
    const created = await request(counts, 'POST', '/session', { sessionScope: 'thread', approvalMode: 'yolo' });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    sessions.push(created.body.sessionId);
  }
  const stop = { done: false };
  const workers = sessions.map((id) => drive(counts, id, stop));

  for (const id of IDS) {
    await pause(1000); // let the load run on every node before the next restart
    down.add(id);
    const code = await cluster.node(id).stop();
    assert.equal(code, 0, `node ${id} drains and exits cleanly: ${cluster.node(id).stderr()}`);
    await cluster.start(id);
    down.delete(id);
  }
  await pause(1000);
  stop.done = true;
  const accepted = await Promise.all(workers);

  // Every session still answers, and its transcript settles every prompt it accepted, once.
  const endings = new Map<string, number>();
  for (const [i, sessionId] of sessions.entries()) {
    const last = await request(counts, 'POST', `/session/${sessionId}/prompt`, { prompt: [{ type: 'text', text: 'after the restarts' }] });
    assert.equal(last.status, 202, JSON.stringify(last.body));
    let events = await transcript(counts, sessionId);
    while (terminalOf(events, last.body.promptId).length === 0) {
      await pause(25);
      events = await transcript(counts, sessionId);
    }
    assert.equal(terminalOf(events, last.body.promptId)[0].type, 'turn_complete', `session ${i} answers after the restarts`);
    for (const promptId of accepted[i]!) {
      const ends = terminalOf(events, promptId);
      assert.equal(ends.length, 1, `prompt ${promptId} of session ${i} ends exactly once: ${ends.map((e) => e.type).join(', ')}`);
      const end = ends[0];
      const key = end.type === 'turn_complete' ? 'turn_complete' : `turn_error:${end.data.error?.code ?? end.data.code}`;
      endings.set(key, (endings.get(key) ?? 0) + 1);
      if (end.type === 'turn_error') assert.ok(HANDOVER_CODES.has(end.data.error?.code ?? end.data.code), `a documented ending: ${JSON.stringify(end.data)}`);
    }
    const completed = events.filter((e) => e.type === 'turn_complete').length;
    assert.equal(completed, accepted[i]!.filter((p) => terminalOf(events, p)[0].type === 'turn_complete').length + 1, 'the transcript holds every completed turn');
  }
  process.stdout.write(`prompts accepted ${counts.sent}; endings ${JSON.stringify(Object.fromEntries(endings))}; retries ${JSON.stringify(Object.fromEntries(counts.retries))}\n`);
  assert.ok(counts.sent >= SESSIONS * IDS.length, 'the load kept running through the restarts');
});
