import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { BerthError } from '../../../src/protocol/errors/index.js';
import { ChannelHub, type HubLimits } from '../../../src/gateway/host/hub.js';
import type { ChannelLink } from '../../../src/gateway/host/outgoing-call.js';
import type { Delay } from '../../../src/gateway/host/journal-rows.js';
import { silentLogger } from '../../../src/log.js';
import { SqliteGatewayCallRepository } from '../../../src/store/repos/gateway-calls.js';
import { fixedClock, tempStore } from '../../support/tools.js';

/**
 * The hub's decisions without any socket: channels are links that record
 * what they were sent, and the journal is the real SQLite repository.
 */

const WS = 'proj';
const SESSION = '550e8400-e29b-41d4-a716-446655440000';

class RecordingLink implements ChannelLink {
  readonly sent: any[] = [];
  closedWith: number | undefined;
  send(text: string): void {
    this.sent.push(JSON.parse(text));
  }
  close(code: number): void {
    this.closedWith = code;
  }
}

describe('ChannelHub', () => {
  let store: ReturnType<typeof tempStore>;
  let journal: SqliteGatewayCallRepository;
  let hub: ChannelHub;
  let ids = 0;
  /** Batched journal rows are written only by written() and shutdown: a crash can come before them. */
  const heldRows: Delay = () => ({ cancel: () => undefined });
  const make = (limits: Partial<HubLimits> = {}, otherNodesAdopt = false) =>
    new ChannelHub({
      limits: { maxChannels: 20, maxChannelsPerToken: 4, maxInflightCallsPerWorkspace: 4, maxFrameBytes: 2 * 1024 * 1024, channelWaitMs: 50, ...limits },
      intentions: new Map([[WS, 'the intention']]),
      journal,
      clock: fixedClock(),
      log: silentLogger(),
      newId: () => `id-${++ids}`,
      otherNodesAdopt,
      rowsDelay: heldRows,
    });
  const openChannel = (tokenId = 'tok-1') => {
    const link = new RecordingLink();
    const channel = hub.reserve({ tokenId, workspaceId: WS }).open(link);
    return { link, channel };
  };
  const call = (tool = 'workspace_write', effectful = true, signal = new AbortController().signal) =>
    hub.call({ workspaceId: WS, sessionId: SESSION, tool, args: { path: 'a' }, effectful }, signal);
  const answer = (ch: ReturnType<typeof openChannel>, frame: any, result: unknown = { ok: 1 }) =>
    ch.channel.received({ type: 'result', id: frame.id, sessionId: frame.sessionId, result: JSON.stringify(result) });
  const codeOf = async (p: Promise<unknown>) => {
    try {
      await p;
      return 'ok';
    } catch (err) {
      return (err as BerthError).code;
    }
  };

  beforeEach(() => {
    store = tempStore();
    journal = new SqliteGatewayCallRepository(store.store.db);
    hub = make();
  });
  afterEach(async () => {
    await hub.shutdown();
    store.close();
  });

  test('on a daemon alone a write leaves at once, its sent row follows with its batch, and its result settles it once', async () => {
    const a = openChannel();
    await hub.written();
    const pending = call();
    assert.equal(a.link.sent.length, 1, 'sent in the same turn, without waiting for a row');
    const frame = a.link.sent[0];
    assert.equal(frame.type, 'call');
    assert.equal(frame.intention, 'the intention');
    assert.equal(await journal.find(frame.id), undefined, 'the row waits for its batch');
    await hub.written();
    assert.equal((await journal.find(frame.id))?.state, 'sent');
    answer(a, frame, { first: true });
    answer(a, frame, { second: true });
    assert.equal(await pending, JSON.stringify({ first: true }));
    await hub.written();
    assert.equal((await journal.find(frame.id))?.state, 'answered');
    assert.equal(a.link.closedWith, undefined);
  });

  test('a read is not journaled: it has no effect to settle after a restart, and its result still settles it once', async () => {
    const a = openChannel();
    const pending = call('workspace_read', false);
    await hub.written();
    const frame = a.link.sent[0];
    assert.equal(frame.tool, 'workspace_read');
    assert.equal(await journal.find(frame.id), undefined);
    answer(a, frame, { first: true });
    answer(a, frame, { second: true });
    assert.equal(await pending, JSON.stringify({ first: true }));
    await hub.written();
    assert.equal(await journal.find(frame.id), undefined);
  });

  test('in a cluster a write is journaled as sent before its frame leaves, since another node may adopt it', async () => {
    await hub.shutdown();
    hub = make({}, true);
    const a = openChannel();
    await hub.written();
    const pending = call();
    assert.equal(a.link.sent.length, 0, 'the frame waits for its journal row');
    await hub.written();
    const frame = a.link.sent[0];
    assert.equal((await journal.find(frame.id))?.state, 'sent');
    answer(a, frame, { done: true });
    assert.equal(await pending, JSON.stringify({ done: true }));
  });

  test('in a cluster a read leaves at once when no journal row is being written, and behind a write whose row is', async () => {
    await hub.shutdown();
    hub = make({}, true);
    const a = openChannel();
    await hub.written();
    void call('workspace_read', false).catch(() => undefined);
    assert.equal(a.link.sent.length, 1, 'nothing to wait for: sent in the same turn');
    void call('workspace_write', true).catch(() => undefined);
    void call('workspace_read', false).catch(() => undefined);
    assert.equal(a.link.sent.length, 1, 'the write waits for its row, and the read behind it');
    await hub.written();
    assert.deepEqual(
      a.link.sent.map((f) => f.tool),
      ['workspace_read', 'workspace_write', 'workspace_read'],
    );
  });

  test("a write's result reaches its caller before its journal row is closed, and written() waits for the row", async () => {
    const a = openChannel();
    const pending = call();
    await hub.written();
    const frame = a.link.sent[0];
    answer(a, frame, { done: true });
    assert.equal(await pending, JSON.stringify({ done: true }));
    assert.equal((await journal.find(frame.id))?.state, 'sent', 'recorded with its batch, off the caller\'s path');
    await hub.written();
    const row = await journal.find(frame.id);
    assert.deepEqual({ state: row?.state, result: row?.result }, { state: 'answered', result: JSON.stringify({ done: true }) });
  });

  test('a new call goes to the channel with the fewest unanswered calls, ties to the longest open', async () => {
    const a = openChannel();
    const b = openChannel();
    void call().catch(() => undefined);
    void call().catch(() => undefined);
    void call().catch(() => undefined);
    await hub.written();
    assert.deepEqual([a.link.sent.length, b.link.sent.length], [2, 1]);
    answer(a, a.link.sent[0]);
    answer(a, a.link.sent[1]);
    void call().catch(() => undefined);
    await hub.written();
    assert.equal(a.link.sent.length, 3);
  });

  test('a sent call goes again only to a channel of the token it first went to', async () => {
    const a = openChannel('tok-1');
    const pending = call();
    await hub.written();
    const frame = a.link.sent[0];
    a.channel.closed();
    const other = openChannel('tok-2');
    await hub.written();
    assert.equal(other.link.sent.length, 0, 'another owner never gets it');
    const back = openChannel('tok-1');
    await hub.written();
    assert.equal(back.link.sent[0].id, frame.id);
    assert.equal((await journal.find(frame.id))?.sends, 2);
    answer(back, frame);
    assert.equal(await codeOf(pending), 'ok');
  });

  test('when its owner does not come back in time, a sent write is uncertain and a sent read unavailable', async () => {
    const a = openChannel();
    const write = call('workspace_write', true);
    const read = call('workspace_read', false);
    await hub.written();
    a.channel.closed();
    assert.equal(await codeOf(write), 'uncertain_effect');
    assert.equal(await codeOf(read), 'channel_unavailable');
    await hub.written();
    assert.equal((await journal.find(a.link.sent[0].id))?.state, 'abandoned');
  });

  test('a call never sent fails channel_unavailable after the wait and leaves no journal row', async () => {
    const pending = call();
    assert.equal(await codeOf(pending), 'channel_unavailable');
    assert.equal(await journal.find('id-1'), undefined);
  });

  test('cancelling a waiting call drops it; cancelling a sent write reports it uncertain and keeps its slot until A answers', async () => {
    await hub.shutdown();
    hub = make({ maxInflightCallsPerWorkspace: 1 });
    const a = openChannel();
    const sentCtl = new AbortController();
    const waitingCtl = new AbortController();
    const sent = call('workspace_write', true, sentCtl.signal);
    const waiting = call('workspace_write', true, waitingCtl.signal);
    waitingCtl.abort();
    assert.equal(await codeOf(waiting), 'tool_cancelled');
    const third = call();
    await hub.written();
    sentCtl.abort();
    assert.equal(await codeOf(sent), 'uncertain_effect');
    assert.equal(a.link.sent.length, 1, 'the slot stays taken while A may still run the cancelled call');
    answer(a, a.link.sent[0]);
    await hub.written();
    assert.equal(a.link.sent.length, 2);
    answer(a, a.link.sent[1], { third: true });
    assert.equal(await third, JSON.stringify({ third: true }));
  });

  test('a result naming another session closes the channel and settles nothing', async () => {
    const a = openChannel();
    const pending = call();
    await hub.written();
    const frame = a.link.sent[0];
    a.channel.received({ type: 'result', id: frame.id, sessionId: 'someone-else', result: '{}' });
    assert.equal(a.link.closedWith, 1008);
    assert.equal((await journal.find(frame.id))?.state, 'sent');
    a.channel.closed();
    const back = openChannel();
    await hub.written();
    answer(back, back.link.sent[0]);
    assert.equal(await codeOf(pending), 'ok');
  });

  test('a call whose frame would pass the frame limit is refused before it is journaled', async () => {
    await hub.shutdown();
    hub = make({ maxFrameBytes: 1024 });
    openChannel();
    const big = hub.call({ workspaceId: WS, sessionId: SESSION, tool: 'workspace_write', args: { content: 'x'.repeat(2000) }, effectful: true }, new AbortController().signal);
    assert.equal(await codeOf(big), 'frame_too_large');
  });

  test('shutdown fails waiting calls with daemon_shutdown and reports sent writes uncertain, abandoning them', async () => {
    await hub.shutdown();
    hub = make({ maxInflightCallsPerWorkspace: 1 });
    const a = openChannel();
    const sent = call();
    const waiting = call();
    await hub.written();
    await hub.shutdown();
    assert.equal(await codeOf(sent), 'uncertain_effect');
    assert.equal(await codeOf(waiting), 'daemon_shutdown');
    assert.equal((await journal.find(a.link.sent[0].id))?.state, 'abandoned');
    assert.equal(a.link.closedWith, 1001);
  });

  test('limits: the daemon-wide and per-token channel counts, freed by release and by close', async () => {
    await hub.shutdown();
    hub = make({ maxChannels: 3, maxChannelsPerToken: 2 });
    const reserve = (tokenId: string) => hub.reserve({ tokenId, workspaceId: WS });
    const r1 = reserve('t1');
    reserve('t1');
    assert.throws(() => reserve('t1'), (e: BerthError) => e.code === 'channel_limit_exceeded' && e.details.scope === 'token');
    const r3 = reserve('t2');
    assert.throws(() => reserve('t3'), (e: BerthError) => e.code === 'channel_limit_exceeded' && e.details.scope === 'daemon');
    r1.release();
    r1.release();
    const opened = reserve('t3').open(new RecordingLink());
    assert.throws(() => reserve('t4'), (e: BerthError) => e.details.scope === 'daemon');
    opened.closed();
    opened.closed();
    r3.release();
    assert.equal(hub.counters().gatewayChannels, 1);
    assert.throws(() => hub.reserve({ tokenId: 't1', workspaceId: 'not-remote' }), (e: BerthError) => e.code === 'workspace_not_remote');
  });

  test('answered rows not yet written when B dies are abandoned by the next B, and the calls are not sent again', async () => {
    const a = openChannel();
    const calls = [call(), call()];
    await hub.written();
    for (const frame of a.link.sent) answer(a, frame, { done: frame.id });
    await Promise.all(calls);
    // The next B starts on the same journal before this one wrote its batch: what a crash leaves.
    const next = make();
    const again = new RecordingLink();
    const b = next.reserve({ tokenId: 'tok-1', workspaceId: WS }).open(again);
    await next.written();
    for (const frame of a.link.sent) assert.equal((await journal.find(frame.id))?.state, 'abandoned');
    assert.deepEqual(again.sent, [], 'nothing is sent again');
    b.closed();
    await next.shutdown();
  });

  test('a write whose sent row was not yet written when B dies is neither abandoned nor sent again by the next B', async () => {
    const a = openChannel();
    await hub.written();
    void call().catch(() => undefined);
    const id = a.link.sent[0].id;
    // The next B starts on the same journal before this one wrote its batch: what a crash leaves.
    const next = make();
    const again = new RecordingLink();
    const b = next.reserve({ tokenId: 'tok-1', workspaceId: WS }).open(again);
    await next.written();
    assert.equal(await journal.find(id), undefined, 'no row: nothing for the next B to settle');
    assert.deepEqual(again.sent, [], 'nothing is sent again');
    b.closed();
    await next.shutdown();
  });

  test('a restarted hub abandons the calls its journal still holds as sent', async () => {
    const a = openChannel();
    void call().catch(() => undefined);
    await hub.written();
    const id = a.link.sent[0].id;
    const next = make();
    await next.written();
    assert.equal((await journal.find(id))?.state, 'abandoned');
    await next.shutdown();
  });
});
