import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { BerthError } from '../../../src/protocol/errors/index.js';
import { ChannelHub } from '../../../src/gateway/host/hub.js';
import type { ChannelLink } from '../../../src/gateway/host/outgoing-call.js';
import { silentLogger } from '../../../src/log.js';
import { SqliteGatewayCallRepository } from '../../../src/store/repos/gateway-calls.js';
import { fixedClock, tempStore } from '../../support/tools.js';

/**
 * Two nodes' hubs handing a sent call from one to the other (src/gateway/host/handover.ts):
 * the old holder's caller gets the answer A gives on the new holder's channel, the call goes
 * out again with the same id, and it is never sent by both.
 */

const WS = 'proj';
const SESSION = '550e8400-e29b-41d4-a716-446655440000';

class RecordingLink implements ChannelLink {
  readonly sent: any[] = [];
  send(text: string): void {
    this.sent.push(JSON.parse(text));
  }
  close(): void {}
}

describe('handing sent gateway calls to another node', () => {
  let store: ReturnType<typeof tempStore>;
  let old: ChannelHub;
  let next: ChannelHub;
  let ids = 0;
  const make = (prefix: string) =>
    new ChannelHub({
      limits: { maxChannels: 20, maxChannelsPerToken: 4, maxInflightCallsPerWorkspace: 4, maxFrameBytes: 2 * 1024 * 1024, channelWaitMs: 60_000 },
      intentions: new Map([[WS, 'the intention']]),
      journal: new SqliteGatewayCallRepository(store.store.db),
      clock: fixedClock(),
      log: silentLogger(),
      newId: () => `${prefix}-${++ids}`,
    });
  const open = (hub: ChannelHub, tokenId = 'tok-1') => {
    const link = new RecordingLink();
    return { link, channel: hub.reserve({ tokenId, workspaceId: WS }).open(link) };
  };
  const write = (signal = new AbortController().signal) =>
    old.call({ workspaceId: WS, sessionId: SESSION, tool: 'workspace_write', args: { path: 'a' }, effectful: true }, signal);
  /** A write sent on a channel of the old hub, which then closed. */
  const orphaned = async (signal?: AbortSignal) => {
    const first = open(old);
    const pending = write(signal);
    await old.written();
    const frame = first.link.sent[0];
    first.channel.closed();
    return { pending, frame };
  };

  beforeEach(async () => {
    store = tempStore();
    old = make('old');
    next = make('next');
    await Promise.all([old.written(), next.written()]);
  });
  afterEach(async () => {
    await old.shutdown();
    await next.shutdown();
    store.close();
  });

  test("the new holder sends it again with the same id and A's answer there reaches the old holder's caller", async () => {
    const { pending, frame } = await orphaned();
    assert.equal(old.hasOrphans(WS), true);
    const there = open(next);
    const [orphan] = old.takeOrphans(WS, 'next');
    assert.equal(old.hasOrphans(WS), false, 'taken once');
    const adopted = next.adopt(orphan!.call, 'old', new AbortController().signal);
    assert.ok(adopted);
    await next.written();
    assert.deepEqual(there.link.sent.map((f) => [f.id, f.tool, f.args]), [[frame.id, 'workspace_write', frame.args]]);
    const back = open(old);
    await old.written();
    assert.equal(back.link.sent.length, 0, 'A dialing the old holder again does not get the handed call twice');
    there.channel.received({ type: 'result', id: frame.id, sessionId: SESSION, result: '{"done":1}' });
    orphan!.done({ ok: true, result: await adopted! });
    assert.equal(await pending, '{"done":1}');
    await next.written();
    assert.equal((await new SqliteGatewayCallRepository(store.store.db).find(frame.id))?.state, 'answered');
  });

  test('a node without a channel of its token does not take it: it waits on the old holder and goes out there when A comes back', async () => {
    const { pending, frame } = await orphaned();
    open(next, 'another-token');
    const [orphan] = old.takeOrphans(WS, 'next');
    assert.equal(next.adopt(orphan!.call, 'old', new AbortController().signal), undefined);
    orphan!.back();
    const back = open(old);
    await old.written();
    assert.deepEqual(back.link.sent.map((f) => f.id), [frame.id]);
    back.channel.received({ type: 'result', id: frame.id, sessionId: SESSION, result: '{"here":1}' });
    assert.equal(await pending, '{"here":1}');
  });

  test('a caller that gives up a handed call is told at once, and the node carrying it is told to stop waiting', async () => {
    const abort = new AbortController();
    const { pending } = await orphaned(abort.signal);
    const [orphan] = old.takeOrphans(WS, 'next');
    abort.abort();
    const code = await pending.then(
      () => 'ok',
      (err: BerthError) => err.code,
    );
    assert.equal(code, 'uncertain_effect');
    assert.equal(orphan!.settledHere.aborted, true);
  });
});
