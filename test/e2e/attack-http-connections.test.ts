import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { DEFAULT_HTTP_LIMITS } from '../../src/config/http-limits.js';
import { startTestDaemon, type TestDaemon } from '../support/daemon.js';
import { assertHealthy, watchHealth } from '../support/health-watch.js';

/**
 * Issue 16 #1: request bodies that drip were never timed out and connections
 * were not capped, so anyone who could connect could use up the daemon's file
 * descriptors. The deadlines here are the defaults scaled down to seconds.
 */
const limits = {
  ...DEFAULT_HTTP_LIMITS,
  requestTimeoutMs: 1500,
  headersTimeoutMs: 1000,
  idleTimeoutMs: 3000,
  maxConnections: 48,
  maxConnectionsPerAddress: 16,
};
let d: TestDaemon;
const sockets: Socket[] = [];
before(async () => {
  d = await startTestDaemon({ config: { httpLimits: limits } });
});
after(async () => {
  for (const s of sockets) s.destroy();
  await d.close();
});

const port = () => Number(new URL(d.url).port);

/** Rejects after `ms` without holding the process open once the test is done. */
function deadline(ms: number, message: string): Promise<never> {
  return new Promise((_, reject) => setTimeout(() => reject(new Error(message)), ms).unref());
}

function open(localAddress: string): Promise<{ socket: Socket; closed: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: port(), localAddress });
    sockets.push(socket);
    let received = '';
    socket.on('data', (b) => (received += b.toString('latin1')));
    const closed = new Promise<string>((r) => socket.once('close', () => r(received)));
    socket.once('error', () => undefined);
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });
}

test('bodies that drip a byte at a time are cut at the request deadline while /health stays prompt', async () => {
  const health = await watchHealth(d.url);
  const drippers = await Promise.all(Array.from({ length: 12 }, () => open('127.0.0.2')));
  const started = Date.now();
  const timers = drippers.map(({ socket }) => {
    socket.write(`POST /session HTTP/1.1\r\nHost: 127.0.0.1:${port()}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`);
    return setInterval(() => socket.writable && socket.write(' '), 100);
  });
  try {
    const answers = await Promise.race([
      Promise.all(drippers.map((x) => x.closed)),
      deadline(8000, 'drippers still connected after 8 s'),
    ]);
    const took = Date.now() - started;
    assert.ok(took < limits.requestTimeoutMs + 2000, `cut after ${took} ms`);
    for (const a of answers) assert.ok(a === '' || /^HTTP\/1\.1 408/.test(a), `a cut dripper saw ${a.slice(0, 40)}`);
  } finally {
    timers.forEach(clearInterval);
  }
  assertHealthy('body drippers', await health.stop());
});

test('a connection that never sends a request is closed at the header deadline', async () => {
  const { closed } = await open('127.0.0.3');
  const started = Date.now();
  await Promise.race([closed, deadline(6000, 'silent connection still open')]);
  assert.ok(Date.now() - started < limits.idleTimeoutMs + 1000);
});

test('one address holds at most its share of connections, and the daemon-wide cap holds, while others are still served', async () => {
  const health = await watchHealth(d.url);
  const results = await Promise.all(
    Array.from({ length: 24 }, () => open('127.0.0.4').then(({ socket, closed }) => ({ socket, closed, shut: false }))),
  );
  // Refused connections are closed by the daemon at once.
  await new Promise((r) => setTimeout(r, 300));
  const held = results.filter((r) => !r.socket.destroyed && r.socket.readyState === 'open').length;
  assert.equal(held, limits.maxConnectionsPerAddress, 'the address keeps exactly its cap');

  // Other addresses fill the rest of the daemon-wide cap; beyond it nothing more is kept.
  const more = await Promise.all(
    Array.from({ length: 48 }, (_, i) => open(`127.0.1.${(i % 6) + 1}`).catch(() => null)),
  );
  await new Promise((r) => setTimeout(r, 300));
  const open_ = [...results.map((r) => r.socket), ...more.filter((m) => m !== null).map((m) => m!.socket)].filter(
    (s) => !s.destroyed && s.readyState === 'open',
  ).length;
  // The health watcher holds one slot of the cap.
  assert.ok(open_ <= limits.maxConnections - 1, `${open_} attack connections kept open`);

  for (const s of sockets) s.destroy();
  await new Promise((r) => setTimeout(r, 100));
  const caps = await d.json('GET', '/capabilities');
  assert.equal(caps.body.limits.maxHttpConnections, limits.maxConnections);
  assert.equal(caps.body.limits.maxHttpConnectionsPerAddress, limits.maxConnectionsPerAddress);
  assert.equal(caps.body.limits.httpRequestTimeoutMs, limits.requestTimeoutMs);
  assertHealthy('a connection flood', await health.stop());
});
