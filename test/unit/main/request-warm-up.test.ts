import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { ownAddress, warmRequestPath, warmsUp } from '../../../src/main/request-warm-up.js';

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly authorization: string | undefined;
  readonly body: string;
  readonly socketPort: number;
}

/** A listener that answers /health 200 and everything else 404, and keeps what it was sent. */
async function listener(): Promise<{ server: Server; port: number; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        authorization: req.headers.authorization,
        body: Buffer.concat(chunks).toString('utf8'),
        socketPort: req.socket.remotePort ?? 0,
      });
      res.writeHead(req.url === '/health' ? 200 : 404, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, seen };
}

const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

describe('the request warm-up', () => {
  it('sends each round a health check and a prompt for a session nobody has, on one connection, with the owner bearer', async () => {
    const { server, port, seen } = await listener();
    try {
      const report = await warmRequestPath({ host: '127.0.0.1', port, token: 'owner-secret' }, 3, () => false);
      assert.deepEqual(report.statuses, { 200: 3, 404: 3 });
      assert.equal(report.requests, 6);
      assert.deepEqual(seen.map((s) => s.method), ['GET', 'POST', 'GET', 'POST', 'GET', 'POST']);
      const prompts = seen.filter((s) => s.method === 'POST');
      assert.equal(new Set(prompts.map((s) => s.url)).size, 3, 'every prompt names a session id of its own');
      for (const p of prompts) {
        assert.match(p.url, /^\/session\/[0-9a-f-]{36}\/prompt$/);
        assert.deepEqual(JSON.parse(p.body), { prompt: [{ type: 'text', text: 'warm-up' }] });
      }
      assert.ok(seen.every((s) => s.authorization === 'Bearer owner-secret'));
      assert.equal(new Set(seen.map((s) => s.socketPort)).size, 1, 'one keep-alive connection');
    } finally {
      await close(server);
    }
  });

  it('sends no bearer for an anonymous daemon, and stops asking as soon as it is told to', async () => {
    const { server, port, seen } = await listener();
    try {
      let asked = 0;
      const report = await warmRequestPath({ host: '127.0.0.1', port, token: null }, 10, () => ++asked > 3);
      assert.equal(report.requests, 3);
      assert.equal(seen.length, 3);
      assert.ok(seen.every((s) => s.authorization === undefined));
    } finally {
      await close(server);
    }
  });

  it('stops at the first request nobody answers, counts it as failed, and never throws', async () => {
    const { server, port } = await listener();
    await close(server);
    const report = await warmRequestPath({ host: '127.0.0.1', port, token: null }, 5, () => false);
    assert.deepEqual(report.statuses, { failed: 1 });
    assert.equal(report.requests, 1);
  });

  it('gives up a request that gets no answer in time, and sends no more', async () => {
    const silent = createServer(() => {
      // Takes the request and never answers.
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as AddressInfo).port;
      const report = await warmRequestPath({ host: '127.0.0.1', port, token: null }, 5, () => false, 100);
      assert.deepEqual(report.statuses, { failed: 1 });
    } finally {
      silent.closeAllConnections();
      await close(silent);
    }
  });

  it('reaches a wildcard bind through loopback, and any other address as it is', () => {
    assert.equal(ownAddress({ address: '0.0.0.0', family: 'IPv4', port: 1 }), '127.0.0.1');
    assert.equal(ownAddress({ address: '::', family: 'IPv6', port: 1 }), '::1');
    assert.equal(ownAddress({ address: '127.0.0.1', family: 'IPv4', port: 1 }), '127.0.0.1');
    assert.equal(ownAddress({ address: '::1', family: 'IPv6', port: 1 }), '::1');
  });

  it('is made by a daemon alone without a rate limit, and by no cluster node', () => {
    const alone = { cluster: null, bus: null };
    assert.equal(warmsUp(alone, false), true);
    assert.equal(warmsUp(alone, true), false);
    assert.equal(warmsUp({ cluster: { nodeId: 'n1', leaseMs: 10_000 }, bus: null }, false), false);
    assert.equal(warmsUp({ cluster: null, bus: 'nats://127.0.0.1:4222' }, false), false);
  });
});
