import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { GatewayRelay } from '../../../src/cluster/gateway-relay.js';
import { serveGateway, type GatewayCall, type LocalGateway } from '../../../src/cluster/gateway-serve.js';
import { connectNats } from '../../../src/cluster/nats-transport.js';
import type { BusSubscription, BusTransport } from '../../../src/cluster/transport.js';
import { silentLogger } from '../../../src/log.js';
import { BerthError } from '../../../src/protocol/errors/index.js';
import { natsMissing, startNats, type NatsServer } from '../../support/nats.js';

const skip = natsMissing();
const WS = 'proj.a';

/** A hub stand-in: holds a channel when told, and keeps each call until the test settles it or its signal aborts. */
class FakeHub implements LocalGateway {
  held = false;
  readonly calls: Array<{ request: GatewayCall; signal: AbortSignal; answer: (text: string) => void }> = [];
  private readonly watchers: Array<(ws: string) => void> = [];
  private readonly arrivals = new Set<() => void>();

  holds(): boolean {
    return this.held;
  }
  setHeld(held: boolean): void {
    this.held = held;
    for (const w of this.watchers) w(WS);
  }
  watchChannels(watcher: (ws: string) => void): void {
    this.watchers.push(watcher);
  }
  call(request: GatewayCall, signal: AbortSignal): Promise<string> {
    return new Promise((resolve, reject) => {
      signal.addEventListener('abort', () => reject(new BerthError('tool_cancelled', 'cancelled on the holder')), { once: true });
      this.calls.push({ request, signal, answer: resolve });
      for (const a of [...this.arrivals]) a();
    });
  }
  async holdersOf(): Promise<string[]> {
    return [];
  }
  hasOrphans(): boolean {
    return false;
  }
  takeOrphans(): [] {
    return [];
  }
  adopt(): undefined {
    return undefined;
  }
  async nth(n: number) {
    while (this.calls.length < n) await new Promise<void>((r) => this.arrivals.add(r));
    return this.calls[n - 1]!;
  }
}

const read = (tool = 'workspace_read'): GatewayCall => ({ workspaceId: WS, sessionId: 's1', tool, args: { path: 'a' }, effectful: tool !== 'workspace_read' });

describe('gateway calls relayed to the node holding the channel', { skip }, () => {
  let nats: NatsServer;
  const transports: BusTransport[] = [];
  const node = async (name: string) => {
    const t = await connectNats(nats.url, name);
    transports.push(t);
    return t;
  };
  before(async () => {
    nats = await startNats();
  });
  after(async () => {
    for (const t of transports) await t.close();
    await nats.stop();
  });

  it('a call goes to the holder and comes back with its answer; a cancel there cancels it on the holder', async () => {
    const holderHub = new FakeHub();
    const served: BusSubscription = serveGateway(await node('h1'), 'h1', holderHub, silentLogger());
    holderHub.setHeld(true);
    const relay = new GatewayRelay({ transport: await node('c1'), nodeId: 'c1', local: new FakeHub(), waitMs: 5_000, newId: randomUUID });
    const answered = relay.call(read(), new AbortController().signal);
    const first = await holderHub.nth(1);
    assert.deepEqual(first.request, read());
    first.answer('{"content":"x"}');
    assert.equal(await answered, '{"content":"x"}');

    const abort = new AbortController();
    const cancelled = relay.call(read('workspace_write'), abort.signal);
    const second = await holderHub.nth(2);
    abort.abort();
    await assert.rejects(cancelled, (err: BerthError) => err.code === 'tool_cancelled');
    assert.equal(second.signal.aborted, true, 'the holder cancelled it in its hub');
    relay.close();
    served.unsubscribe();
  });

  it('a call made while nobody holds a channel is sent once one opens on another node, and fails channel_unavailable when none does', async () => {
    const holderHub = new FakeHub();
    const served = serveGateway(await node('h2'), 'h2', holderHub, silentLogger());
    const relay = new GatewayRelay({ transport: await node('c2'), nodeId: 'c2', local: new FakeHub(), waitMs: 300, newId: randomUUID });
    await assert.rejects(relay.call(read(), new AbortController().signal), (err: BerthError) => err.code === 'channel_unavailable');

    const patient = new GatewayRelay({ transport: await node('c3'), nodeId: 'c3', local: new FakeHub(), waitMs: 60_000, newId: randomUUID });
    const waiting = patient.call(read(), new AbortController().signal);
    holderHub.setHeld(true);
    (await holderHub.nth(1)).answer('"late"');
    assert.equal(await waiting, '"late"');
    relay.close();
    patient.close();
    served.unsubscribe();
  });

  it('a call larger than the bus carries is refused bus_message_too_large before it is sent, and the holder sees nothing', async () => {
    const holderHub = new FakeHub();
    const served = serveGateway(await node('h5'), 'h5', holderHub, silentLogger());
    holderHub.setHeld(true);
    const transport = await node('c5');
    const relay = new GatewayRelay({ transport, nodeId: 'c5', local: new FakeHub(), waitMs: 5_000, newId: randomUUID });
    const big: GatewayCall = { ...read('workspace_write'), args: { path: 'a', content: 'x'.repeat(transport.maxPayload) } };
    await assert.rejects(relay.call(big, new AbortController().signal), (err: BerthError) => {
      assert.equal(err.code, 'bus_message_too_large');
      assert.equal((err.details as { limit?: number }).limit, transport.maxPayload);
      return true;
    });
    // The channel still works for a call that fits, and it is the only one the holder ever saw.
    const small = relay.call(read(), new AbortController().signal);
    (await holderHub.nth(1)).answer('"fits"');
    assert.equal(await small, '"fits"');
    assert.equal(holderHub.calls.length, 1);
    relay.close();
    served.unsubscribe();
  });

  it('a holder that vanishes mid-call: a write is reported uncertain_effect, never silently lost', async () => {
    const holderHub = new FakeHub();
    const holderBus = await node('h4');
    serveGateway(holderBus, 'h4', holderHub, silentLogger());
    holderHub.setHeld(true);
    const relay = new GatewayRelay({ transport: await node('c4'), nodeId: 'c4', local: new FakeHub(), waitMs: 5_000, newId: randomUUID, probeMs: 50 });
    const pending = relay.call(read('workspace_write'), new AbortController().signal);
    await holderHub.nth(1);
    await holderBus.close();
    await assert.rejects(pending, (err: BerthError) => err.code === 'uncertain_effect');
    relay.close();
  });
});
