import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSseStream } from '@qwen-code/sdk/daemon';
import { EventBus } from '../../../src/events/bus.js';
import { controlFrame, frameOf } from '../../../src/events/envelope.js';
import { SSE_HEARTBEAT, SSE_PREAMBLE, encodeFrame, frameBytes } from '../../../src/net/sse-encode.js';
import { ManualClock } from '../../support/events.js';

function streamOf(text: string, chunkSize: number): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + chunkSize));
      at += chunkSize;
    },
  });
}

async function parse(text: string, chunkSize: number) {
  const out = [];
  for await (const event of parseSseStream(streamOf(text, chunkSize))) out.push(event);
  return out;
}

describe('SSE encoding (spec §7.3)', () => {
  it('writes id, event and one data line with the whole envelope, then a blank line', () => {
    const bus = new EventBus({ ringSize: 10, clock: new ManualClock(1795994055916) });
    const env = bus.publish({ type: 'session_update', data: { sessionId: 's', update: { text: 'a\nb' } }, promptId: 'p' });
    const wire = encodeFrame(frameOf(env));
    assert.equal(
      wire,
      'id: 1\nevent: session_update\ndata: {"id":1,"v":1,"type":"session_update","data":{"sessionId":"s","update":{"text":"a\\nb"}},"promptId":"p","_meta":{"serverTimestamp":1795994055916}}\n\n',
    );
  });

  it('encodes a frame once: every subscriber writes the same bytes, equal to the text form', () => {
    const frame = controlFrame('replay_complete', { note: 'ünïcödé ✓' }, 5);
    const first = frameBytes(frame);
    assert.equal(frameBytes(frame), first, 'the same Buffer, not a second encoding');
    assert.deepEqual(first, Buffer.from(encodeFrame(frame), 'utf8'));
    assert.notEqual(frameBytes(controlFrame('replay_complete', { note: 'x' }, 5)), first);
  });

  it('writes control frames without an id line', () => {
    const wire = encodeFrame(controlFrame('replay_complete', { replayedCount: 0 }, 5));
    assert.equal(wire, 'event: replay_complete\ndata: {"v":1,"type":"replay_complete","data":{"replayedCount":0},"_meta":{"serverTimestamp":5}}\n\n');
  });

  it('opens with the retry directive and beats with a comment, exactly as qwen serve does', () => {
    assert.equal(SSE_PREAMBLE, 'retry: 3000\n\n');
    assert.equal(SSE_HEARTBEAT, ': heartbeat\n\n');
  });

  it('round-trips through the official SDK parser, whatever the chunking, ignoring heartbeats', async () => {
    const bus = new EventBus({ ringSize: 10, clock: new ManualClock() });
    const envs = [
      bus.publish({ type: 'session_update', data: { text: 'héllo ✓ \u2028 \r\n end' } }),
      bus.publish({ type: 'turn_complete', data: { stopReason: 'end_turn' }, promptId: 'p' }),
    ];
    const control = controlFrame('replay_complete', { lastReplayedEventId: 2, lastEventId: 2, replayedCount: 2 }, 9);
    const text =
      SSE_PREAMBLE + encodeFrame(frameOf(envs[0]!)) + SSE_HEARTBEAT + encodeFrame(frameOf(envs[1]!)) + encodeFrame(control);
    for (const size of [1, 3, 64, text.length]) {
      const parsed = await parse(text, size);
      assert.deepEqual(parsed, [...envs, control.envelope], `chunk size ${size}`);
    }
  });
});
