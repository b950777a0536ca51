import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { systemClock } from '../../../src/clock.js';
import { envelope } from '../../../src/protocol/toolproto/envelope.js';
import { HostConnection, type FrameSocket } from '../../../src/toolproto/host-connection.js';

class RecordedSocket implements FrameSocket {
  readonly sent: Record<string, any>[] = [];
  send(text: string): void {
    this.sent.push(JSON.parse(text));
  }
  close(): void {}
}

const wrapped = (payload: unknown) => {
  const json = Buffer.from(JSON.stringify(payload));
  return { $ansightEncoding: 'gzip-base64-json', originalBytes: json.byteLength, compressedBytes: gzipSync(json).byteLength, data: gzipSync(json).toString('base64') };
};

/**
 * A compressed frame is inflated off the event loop (zlib's thread pool), so
 * `receive` returns before it is handled; the frames after it wait their
 * turn: answers are handled in the order they arrived, and a compressed frame
 * that does not inflate is refused like any other bad frame, in its place.
 */
test('a compressed answer is inflated off the loop and frames after it are handled after it, in order', async () => {
  const socket = new RecordedSocket();
  const seen: string[] = [];
  const connection = new HostConnection(socket, systemClock, () => seen.push('announcement'));
  const ask = (toolId: string) => {
    const p = connection.request('tool.call', { toolId, arguments: {} }, { timeoutMs: 60_000, what: toolId });
    const id = socket.sent.at(-1)!.id as string;
    void p.then(
      (r) => seen.push(`${toolId} ${String((r.payload as { result: { value: unknown } }).result.value).length}`),
      (e: { code: string }) => seen.push(`${toolId} ${e.code}`),
    );
    return { p, id };
  };
  const big = ask('big');
  const bad = ask('bad');
  const small = ask('small');
  const answer = (replyTo: string, payload: unknown) => JSON.stringify(envelope('tool.result', `${replyTo}.a`, payload, { replyTo, now: Date.now() }));
  connection.receive(answer(big.id, wrapped({ toolId: 'big', success: true, result: { value: 'x'.repeat(2_000_000) } })), false);
  connection.receive(answer(bad.id, { $ansightEncoding: 'gzip-base64-json', originalBytes: 10, compressedBytes: 4, data: 'bm90Z3o=' }), false);
  connection.receive(answer(small.id, { toolId: 'small', success: true, result: { value: 'ok' } }), false);
  assert.deepEqual(seen, [], 'nothing is handled before the compressed frame ahead of it');

  await Promise.allSettled([big.p, bad.p, small.p]);
  assert.deepEqual(seen, ['big 2000000', 'bad invalid_encoding', 'small 2']);
  const refusal = socket.sent.find((f) => f.type === 'tool.error');
  assert.equal(refusal?.replyTo, `${bad.id}.a`, 'the frame that did not inflate is refused');
});
