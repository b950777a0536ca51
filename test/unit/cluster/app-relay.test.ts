import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { applicationRelay, serveApplicationCalls } from '../../../src/cluster/app-relay.js';
import type { ApplicationToolRegistry } from '../../../src/tools/application-registry.js';
import { connectNats } from '../../../src/cluster/nats-transport.js';
import { appsSubject } from '../../../src/cluster/subjects.js';
import type { BusTransport } from '../../../src/cluster/transport.js';
import type { BerthError } from '../../../src/protocol/errors/index.js';
import { natsMissing, startNats, type NatsServer } from '../../support/nats.js';

const skip = natsMissing();
const run = { op: 'run', workspaceId: 'proj.a', tool: 'notes.add', args: { text: 'x' }, callId: 'c1', sessionId: null } as const;

/** A node whose application answers are scripted: what it says to the next request on its apps subject. */
describe('application calls relayed to another node, read back', { skip }, () => {
  let nats: NatsServer;
  let asker: BusTransport;
  let origin: BusTransport;
  let next = '';
  before(async () => {
    nats = await startNats();
    [asker, origin] = await Promise.all([connectNats(nats.url, 'asker'), connectNats(nats.url, 'origin')]);
    origin.serve(appsSubject('origin'), async () => next);
    await origin.flush();
  });
  after(async () => {
    await Promise.all([asker?.close(), origin?.close()]);
    await nats?.stop();
  });

  it('returns the value of a well-formed answer and raises the error of a refusal with its code', async () => {
    const relay = applicationRelay(asker, () => undefined);
    next = JSON.stringify({ ok: true, value: { content: [{ type: 'text', text: 'added' }] } });
    assert.deepEqual(await relay.run('origin', run, new AbortController().signal), { content: [{ type: 'text', text: 'added' }] });
    next = JSON.stringify({ ok: false, error: { code: 'tool_unavailable', message: 'offline', details: { tool: 'notes.add' } } });
    await assert.rejects(relay.run('origin', run, new AbortController().signal), (err: BerthError) => {
      assert.equal(err.code, 'tool_unavailable');
      assert.deepEqual(err.details, { tool: 'notes.add' });
      return true;
    });
  });

  for (const [what, reply] of [
    ['text that is not JSON', 'not json {'],
    ['JSON without ok', '{"value":1}'],
    ['a refusal without an error', '{"ok":false}'],
    ['a refusal whose error has no code', '{"ok":false,"error":{"message":"m"}}'],
    ['a bare value', '42'],
  ] as const) {
    it(`refuses ${what} as internal_error naming the node, on a single call and on a link`, async () => {
      const relay = applicationRelay(asker, () => undefined);
      next = reply;
      await assert.rejects(relay.run('origin', run, new AbortController().signal), (err: BerthError) => {
        assert.equal(err.code, 'internal_error');
        assert.match(err.message, /node origin answered with a malformed reply/);
        return true;
      });
      const outcome = await relay.link('origin', 'proj.a', 'notes').call('notes.add', { text: 'x' });
      assert.equal(outcome.ok, false);
      assert.equal(!outcome.ok && outcome.error.code, 'internal_error');
    });
  }

  it('answers a request it cannot read with invalid_request at once, without touching an application', async () => {
    let touched = 0;
    const registry = new Proxy({}, { get: () => () => void touched++ }) as unknown as ApplicationToolRegistry;
    const served = serveApplicationCalls(origin, 'reader', registry, () => undefined);
    // The subscription must reach the server before the other connection asks, or NATS answers "no responders".
    await origin.flush();
    for (const request of ['not json {', '{"op":"run","workspaceId":"proj.a"}', '{"op":"batch","workspaceId":"proj.a","applicationId":"a","sessionId":null,"request":{}}']) {
      const answer = JSON.parse(Buffer.from(await asker.request(appsSubject('reader'), request, 5_000)).toString('utf8'));
      assert.equal(answer.ok, false, request);
      assert.equal(answer.error.code, 'invalid_request', request);
    }
    assert.equal(touched, 0);
    served.unsubscribe();
  });
});
