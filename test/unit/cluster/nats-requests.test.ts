import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connectNats } from '../../../src/cluster/nats-transport.js';
import { BusRequestError, type BusTransport } from '../../../src/cluster/transport.js';
import { natsMissing, startNats, type NatsServer } from '../../support/nats.js';

const failedWith = (reason: string) => (err: unknown) => err instanceof BusRequestError && err.reason === reason;

describe('request/reply on the NATS transport', { skip: natsMissing() }, () => {
  let nats: NatsServer;
  let asker: BusTransport;
  let answerer: BusTransport;

  before(async () => {
    nats = await startNats();
    asker = await connectNats(nats.url, 'asker');
    answerer = await connectNats(nats.url, 'answerer');
    answerer.serve('echo', async (data) => `echo:${Buffer.from(data).toString('utf8')}`);
    answerer.serve('silent', () => new Promise(() => undefined));
    await answerer.flush();
  });
  after(async () => {
    await asker?.close();
    await answerer?.close();
    await nats?.stop();
  });

  it('gives each of several requests at once its own answer', async () => {
    const answers = await Promise.all(['a', 'b', 'c'].map((x) => asker.request('echo', x, 2_000)));
    assert.deepEqual(answers.map((a) => Buffer.from(a).toString('utf8')), ['echo:a', 'echo:b', 'echo:c']);
  });

  it('fails with no_responders when nothing listens, and timeout when nothing answers', async () => {
    await assert.rejects(asker.request('nobody', 'x', 2_000), failedWith('no_responders'));
    await assert.rejects(asker.request('silent', 'x', 50), failedWith('timeout'));
  });

  it('fails a request the client refuses to publish (here one above the server’s max payload) at once, and the next request is answered', async () => {
    const tooLarge = Buffer.alloc(asker.maxPayload + 1);
    const started = Date.now();
    // A long timeout: only a rejection from the refused publish itself settles it before the test's end.
    await assert.rejects(asker.request('echo', tooLarge, 60_000), (err: unknown) => failedWith('unreachable')(err) && /payload/i.test((err as Error).message));
    assert.ok(Date.now() - started < 30_000, 'refused, not timed out');
    assert.equal(Buffer.from(await asker.request('echo', 'after', 2_000)).toString('utf8'), 'echo:after');
  });

  it('fails a request waiting for its answer with unreachable when the connection closes', async () => {
    const lone = await connectNats(nats.url, 'lone');
    const waiting = lone.request('silent', 'x', 10_000);
    await lone.close();
    await assert.rejects(waiting, failedWith('unreachable'));
  });
});
