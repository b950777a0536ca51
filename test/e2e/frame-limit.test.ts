import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type WebSocket from 'ws';
import { channelPathFor, channelToken, dialChannel, startGatewayHost, type GatewayHost } from '../support/gateway.js';
import { RawApp } from '../support/raw-app.js';

/**
 * `--max-frame-bytes` is one limit: the daemon advertises it in `/capabilities`
 * `limits.frameBytes` and enforces that same number on every WebSocket it
 * serves, the gateway channel and the tool protocol alike (not the protocol's
 * 2 MiB default). Here it is 64 KiB, so a 100 KiB frame, well under 2 MiB,
 * must close the socket with 1009 while a frame just under 64 KiB is read.
 */

const LIMIT = 64 * 1024;

/** Resolves 'pong' when the peer read everything sent before the ping, 'closed' when it closed the socket instead. */
function readsOn(ws: WebSocket): Promise<'pong' | 'closed'> {
  const answer = new Promise<'pong' | 'closed'>((resolve) => {
    ws.once('pong', () => resolve('pong'));
    ws.once('close', () => resolve('closed'));
  });
  ws.ping();
  return answer;
}

/** A JSON text of exactly `bytes` bytes: `frame` with its string field `key` grown to fit. */
function padded(frame: Record<string, unknown>, key: string, bytes: number): string {
  const empty = JSON.stringify({ ...frame, [key]: '' });
  const text = JSON.stringify({ ...frame, [key]: 'x'.repeat(bytes - Buffer.byteLength(empty)) });
  assert.equal(Buffer.byteLength(text), bytes);
  return text;
}

describe('a daemon started with a smaller --max-frame-bytes', { timeout: 60_000 }, () => {
  let host: GatewayHost;

  before(async () => {
    host = await startGatewayHost({ maxFrameBytes: LIMIT });
  });
  after(async () => {
    await host.close();
  });

  test('advertises that limit as limits.frameBytes', async () => {
    const caps = await host.b.json('GET', '/capabilities');
    assert.equal(caps.status, 200);
    assert.equal(caps.body.limits.frameBytes, LIMIT);
  });

  test('the tool protocol reads a frame at the limit and closes an application that sends a larger one (1009)', async () => {
    const app = await RawApp.connect(host.b, (await host.b.daemon.core.tokens.createAppToken('frames', 'read')).token);
    app.ws.send(padded({ type: 'tool.catalog', id: 'at-limit', payload: {} }, 'pad', LIMIT));
    assert.equal(await readsOn(app.ws), 'pong');
    app.ws.send(padded({ type: 'tool.catalog', id: 'too-big', payload: {} }, 'pad', LIMIT + 1));
    assert.equal((await app.closed).code, 1009);
  });

  test('a frame of 100 KiB, under the 2 MiB default, closes the tool-protocol socket too', async () => {
    const app = await RawApp.connect(host.b, (await host.b.daemon.core.tokens.createAppToken('frames-2', 'read')).token);
    app.ws.send(padded({ type: 'tool.catalog', id: 'big', payload: {} }, 'pad', 100 * 1024));
    assert.equal((await app.closed).code, 1009);
  });

  test('the gateway channel reads a frame at the limit and closes on a larger one (1009)', async () => {
    const dialled = await dialChannel(host.b.url, channelPathFor(), { authorization: `Bearer ${await channelToken(host.b)}` });
    assert.ok(dialled.ok);
    if (!dialled.ok) return;
    const { channel } = dialled;
    // A well-formed result for no call in flight: read whole and ignored.
    const result = { type: 'result', id: 'no-such-call', sessionId: 'no-such-session', result: '' };
    channel.ws.send(padded(result, 'result', LIMIT));
    assert.equal(await readsOn(channel.ws), 'pong');
    channel.ws.send(padded(result, 'result', LIMIT + 1));
    assert.equal((await channel.closed).code, 1009);
  });
});
