import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { connectNats } from '../../../src/cluster/nats-transport.js';
import { BusNode } from '../../../src/cluster/bus-node.js';
import type { SessionLocation } from '../../../src/cluster/placement.js';
import { REMOTE_LOCATION_TTL_MS } from '../../../src/cluster/remote-locations.js';
import { systemClock } from '../../../src/clock.js';
import { installErrorHandlers } from '../../../src/http/errors.js';
import { installForwarding } from '../../../src/http/forwarding.js';
import { silentLogger } from '../../../src/log.js';
import { runForwarded } from '../../../src/main/cluster-bus.js';
import { BerthError } from '../../../src/protocol/errors/index.js';
import { natsMissing, startNats, type NatsServer } from '../../support/nats.js';

const skip = natsMissing();
/** Small, so that an oversize request is cheap to make. */
const MAX_PAYLOAD = 64 * 1024;
const SID = '11111111-2222-4333-8444-555555555555';

/** A node's HTTP stack: a few session routes answering who served them, behind a bearer check. */
function sessionApp(name: string, cluster?: BusNode): FastifyInstance {
  const app = Fastify();
  installErrorHandlers(app, silentLogger());
  app.addHook('onRequest', async (request) => {
    if (request.headers.authorization !== 'Bearer t') throw new BerthError('unauthorized');
  });
  installForwarding(app, cluster);
  app.post('/session/:id/prompt', async (request, reply) => reply.code(202).header('x-served-by', name).send({ servedBy: name, echo: request.body, origin: request.headers.origin ?? null, ip: request.ip }));
  app.get('/session/:id/status', async () => {
    throw new BerthError('session_not_found');
  });
  app.get('/session/:id/slow', () => new Promise(() => undefined));
  app.get('/session/:id/context', async () => ({ text: 'y'.repeat(MAX_PAYLOAD) }));
  app.get('/session/:id/transcript', async () => ({ servedBy: name }));
  return app;
}

describe('requests forwarded to the node that runs the session', { skip }, () => {
  let nats: NatsServer;
  let owner: BusNode;
  let front: BusNode;
  let ownerApp: FastifyInstance;
  let frontApp: FastifyInstance;
  let where: SessionLocation = { kind: 'remote', nodeId: 'owner' };
  const followed: string[] = [];

  before(async () => {
    nats = await startNats({ maxPayload: MAX_PAYLOAD });
    // Every answer of `locate` is used at once here: nothing is remembered of where a session was.
    const node = async (nodeId: string, locate: () => SessionLocation) =>
      new BusNode({
        transport: await connectNats(nats.url, nodeId),
        placement: { nodeId, locate: async () => locate() },
        clock: systemClock,
        log: silentLogger(),
        forwardTimeoutMs: 300,
        remoteLocationTtlMs: 0,
      });
    owner = await node('owner', () => ({ kind: 'local' }));
    front = await node('front', () => where);
    ownerApp = sessionApp('owner', owner);
    frontApp = sessionApp('front', front);
    owner.serve({
      handle: runForwarded(owner, ownerApp, () => 'localhost'),
      open: async () => ({ epoch: 'e1', replayFor: () => ({ frames: [], replayedCount: 0, lastEventId: 0 }), snapshot: () => ({}), now: () => 0 }),
      followed: (sessionId) => followed.push(sessionId),
    });
  });
  after(async () => {
    await front?.close();
    await owner?.close();
    await nats?.stop();
  });

  const call = (method: 'GET' | 'POST', url: string, payload?: unknown, authorization = 'Bearer t') =>
    frontApp.inject({ method, url, remoteAddress: '10.1.2.3', headers: { authorization, origin: 'http://front.example' }, ...(payload !== undefined && { payload: payload as object }) });

  it('answers with the owner’s status, headers and body', async () => {
    where = { kind: 'remote', nodeId: 'owner' };
    const res = await call('POST', `/session/${SID}/prompt`, { prompt: [{ type: 'text', text: 'hi' }] });
    assert.equal(res.statusCode, 202);
    assert.equal(res.headers['x-served-by'], 'owner');
    // The Origin was this node's to check; the client's address travels, for the owner's rate limits.
    assert.deepEqual(res.json(), { servedBy: 'owner', echo: { prompt: [{ type: 'text', text: 'hi' }] }, origin: null, ip: '10.1.2.3' });
    const missing = await call('GET', `/session/${SID}/status`);
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json().code, 'session_not_found');
  });

  it('keeps a session that is local or free on this node, and store reads on any node', async () => {
    for (const here of [{ kind: 'local' }, { kind: 'free' }] as const) {
      where = here;
      const res = await call('POST', `/session/${SID}/prompt`, {});
      assert.equal(res.json().servedBy, 'front');
    }
    where = { kind: 'remote', nodeId: 'owner' };
    assert.equal((await call('GET', `/session/${SID}/transcript`)).json().servedBy, 'front');
  });

  it('refuses a request without the token at this node, before anything is forwarded', async () => {
    where = { kind: 'remote', nodeId: 'owner' };
    const res = await call('POST', `/session/${SID}/prompt`, {}, 'Bearer wrong');
    assert.equal(res.statusCode, 401);
  });

  it('answers 503 owner_unreachable, retryable, when the owner is silent or gone', async () => {
    where = { kind: 'remote', nodeId: 'owner' };
    const slow = await call('GET', `/session/${SID}/slow`);
    assert.equal(slow.statusCode, 503);
    assert.equal(slow.json().code, 'owner_unreachable');
    assert.equal(slow.headers['retry-after'], '1');
    where = { kind: 'remote', nodeId: 'nobody' };
    const gone = await call('GET', `/session/${SID}/status`);
    assert.equal(gone.statusCode, 503);
    assert.equal(gone.json().code, 'owner_unreachable');
  });

  it('refuses whole a request larger than a bus message, with 413 bus_message_too_large', async () => {
    where = { kind: 'remote', nodeId: 'owner' };
    const res = await call('POST', `/session/${SID}/prompt`, { prompt: [{ type: 'text', text: 'x'.repeat(MAX_PAYLOAD) }] });
    assert.equal(res.statusCode, 413);
    assert.equal(res.json().code, 'bus_message_too_large');
  });

  it('tells the owner which of its sessions this node still streams, so they are not reaped as idle', async () => {
    const feed = await front.follow(SID, 'owner', {});
    front.noticeFollowed();
    while (!followed.includes(SID)) await new Promise((r) => setTimeout(r, 10));
    feed.close();
    await feed.detached;
    followed.length = 0;
    front.noticeFollowed();
    await front.forward('owner', { method: 'GET', url: `/session/${SID}/transcript`, headers: { authorization: 'Bearer t' } });
    assert.deepEqual(followed, [], 'a closed stream is no longer reported');
  });

  it('refuses whole an owner answer larger than a bus message, with 413 bus_message_too_large', async () => {
    where = { kind: 'remote', nodeId: 'owner' };
    const res = await call('GET', `/session/${SID}/context`);
    assert.equal(res.statusCode, 413);
    assert.equal(res.json().code, 'bus_message_too_large');
  });

  it('reads where a session runs once for a run of requests, and again after the owner failed to answer', async () => {
    let looked = 0;
    let now = 0;
    let held = false;
    const remembering = new BusNode({
      transport: await connectNats(nats.url, 'remembering'),
      placement: { nodeId: 'remembering', locate: async () => (looked++, where) },
      holds: () => held,
      clock: { now: () => now },
      log: silentLogger(),
      forwardTimeoutMs: 300,
    });
    const app = sessionApp('remembering', remembering);
    const get = (path: string) => app.inject({ method: 'GET', url: `/session/${SID}${path}`, headers: { authorization: 'Bearer t' } });
    try {
      where = { kind: 'remote', nodeId: 'owner' };
      for (let i = 0; i < 3; i++) assert.equal((await get('/status')).statusCode, 404);
      assert.equal(looked, 1, 'the lease was read for the first request only');
      held = true;
      assert.deepEqual(await remembering.locate(SID), { kind: 'local' }, 'a session this node took is local at once');
      held = false;
      now += REMOTE_LOCATION_TTL_MS;
      await get('/status');
      assert.equal(looked, 2, 'read again once the remembered place is old');
      where = { kind: 'remote', nodeId: 'nobody' };
      now += REMOTE_LOCATION_TTL_MS;
      assert.equal((await get('/status')).json().code, 'owner_unreachable');
      where = { kind: 'remote', nodeId: 'owner' };
      assert.equal((await get('/status')).json().code, 'session_not_found', 'the failed owner was forgotten');
      assert.equal(looked, 4);
    } finally {
      await remembering.close();
    }
  });
});
