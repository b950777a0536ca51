import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { systemClock } from '../../../src/clock.js';
import { BerthError } from '../../../src/protocol/errors/index.js';
import { envelope } from '../../../src/protocol/toolproto/envelope.js';
import { HostConnection, type FrameSocket } from '../../../src/toolproto/host-connection.js';

/** The application's socket as the host sees it: what the host sent, parsed. */
class RecordedSocket implements FrameSocket {
  readonly sent: Record<string, any>[] = [];
  send(text: string): void {
    this.sent.push(JSON.parse(text));
  }
  close(): void {}
}

const RESULT = { toolId: 'slow', success: true, result: { value: 'done' } };
const result = (replyTo: string) => JSON.stringify(envelope('tool.result', `${replyTo}.answer`, RESULT, { replyTo, now: Date.now() }));

/**
 * Seed 003 on Berth: a request the application leaves unanswered fails with
 * `tool_timeout` (APP_CALL_TIMEOUT_MS for calls), so a hung application cannot
 * hold a turn; the request is then forgotten, and an answer that comes after
 * it is refused as answering nothing. A test-sized timeout stands in for the
 * five minutes; what is checked is the outcome, never how long it took.
 */
describe('a tool protocol request nobody answers', () => {
  it('fails with tool_timeout, and an answer arriving afterwards is refused as answering no request', async () => {
    const socket = new RecordedSocket();
    const connection = new HostConnection(socket, systemClock, () => assert.fail('no announcement expected'));
    const failure = await connection
      .request('tool.call', { toolId: 'slow', arguments: {} }, { timeoutMs: 5, what: 'the call to slow' })
      .then(
        () => assert.fail('the request resolved'),
        (err: unknown) => err,
      );
    assert.ok(failure instanceof BerthError);
    assert.equal(failure.code, 'tool_timeout');
    assert.match(failure.message, /the call to slow/);

    const request = socket.sent.find((f) => f.type === 'tool.call')!;
    connection.receive(result(request.id), false);
    const refusal = socket.sent.at(-1)!;
    assert.equal(refusal.type, 'tool.error');
    assert.equal(refusal.replyTo, `${request.id}.answer`);
    assert.equal(refusal.payload.code, 'protocol_error');
    assert.match(refusal.payload.message, /names no request in flight/);
  });

  it('is not timed out once its answer came', async () => {
    const socket = new RecordedSocket();
    const connection = new HostConnection(socket, systemClock, () => undefined);
    const pending = connection.request('tool.call', { toolId: 'quick', arguments: {} }, { timeoutMs: 60_000, what: 'the call to quick' });
    const request = socket.sent.find((f) => f.type === 'tool.call')!;
    connection.receive(result(request.id), false);
    const reply = await pending;
    assert.equal(reply.type, 'tool.result');
    assert.deepEqual(reply.payload, RESULT);
  });
});
