import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_FRAME_BYTES } from '../../src/protocol/limits.js';
import { MAX_APP_PROTOCOL_ERRORS } from '../../src/toolproto/limits.js';
import { startTestDaemon, type TestDaemon } from '../support/daemon.js';
import { RawApp, agentCall, serveCatalog, until, wrap, type Frame } from '../support/raw-app.js';

const ok = (id: string) => ({ type: 'tool.result', id, payload: {} });

/**
 * Each frame is refused whole with a `tool.error` (seed 003 shapes; Berth
 * keeps the sender connected) and acts on nothing: the sender can still be
 * called afterwards, and another application never notices.
 */
const MALFORMED: Array<{ name: string; frame: string | Record<string, unknown>; code: string }> = [
  { name: 'text that is not JSON', frame: '{"type": "tool.result", ', code: 'protocol_error' },
  { name: 'JSON that is not an object', frame: '[1, 2, 3]', code: 'protocol_error' },
  { name: 'an envelope without an id', frame: { type: 'tool.catalog', payload: {} }, code: 'protocol_error' },
  { name: 'an envelope with a member the seed does not define', frame: { ...ok('m1'), replyTo: 'host_1', extra: true }, code: 'protocol_error' },
  { name: 'a type the application may not send', frame: { type: 'tool.call', id: 'm2', payload: {} }, code: 'protocol_error' },
  { name: 'a payload that is not an object', frame: { type: 'tool.catalog', id: 'm3', payload: 'index' }, code: 'protocol_error' },
  { name: 'an answer without replyTo', frame: ok('m4'), code: 'protocol_error' },
  { name: 'a replyTo naming no request in flight', frame: { ...ok('m5'), replyTo: 'host_999999' }, code: 'protocol_error' },
  { name: 'a catalog announcement of another schema', frame: { type: 'tool.catalog', id: 'm6', payload: { schema: 'other.v1', revision: 'x' } }, code: 'protocol_error' },
  {
    name: 'an unsupported payload encoding',
    frame: { type: 'tool.catalog', id: 'w1', payload: { ...wrap({}), $ansightEncoding: 'brotli-base64-json' } },
    code: 'invalid_encoding',
  },
  { name: 'wrapped data that is not base64', frame: { type: 'tool.catalog', id: 'w2', payload: { ...wrap({}), data: 'H4sI!!!' } }, code: 'invalid_encoding' },
  {
    name: 'wrapped data that is not gzip',
    frame: { type: 'tool.catalog', id: 'w3', payload: { ...wrap({}), data: Buffer.from('{"a":1}').toString('base64') } },
    code: 'invalid_encoding',
  },
  {
    name: 'wrapped gzip of text that is not JSON',
    frame: { type: 'tool.catalog', id: 'w4', payload: { ...wrap({}), data: gzipSync(Buffer.from('{"half":')).toString('base64') } },
    code: 'invalid_encoding',
  },
];

describe('tool protocol: malformed frames are refused whole', () => {
  let d: TestDaemon;
  let sender: RawApp;
  let bystander: RawApp;

  /** The application answers one agent call correctly: it is still connected and still trusted. */
  async function stillServes(app: RawApp, tool: string) {
    const outcome = agentCall(d, tool, {});
    const call = await app.nextOfType('tool.call', (f) => f.payload.toolId === tool);
    app.answer(call, 'tool.result', { toolId: tool, success: true, result: 'still here' });
    const done = await outcome;
    assert.ok(done.ok, JSON.stringify(done));
  }

  before(async () => {
    d = await startTestDaemon();
    sender = await RawApp.connect(d, (await d.daemon.core.tokens.createAppToken('sender', 'read')).token);
    await serveCatalog(sender, [{ id: 'sender.ping' }]);
    bystander = await RawApp.connect(d, (await d.daemon.core.tokens.createAppToken('bystander', 'read')).token);
    await serveCatalog(bystander, [{ id: 'bystander.ping' }]);
    const workspaceId = d.daemon.core.workspaces.primary().id;
    await until(() => d.daemon.core.tools.applications.list(workspaceId).length === 2);
  });
  after(async () => {
    await bystander.close();
    await d.close();
  });

  for (const { name, frame, code } of MALFORMED) {
    it(`refuses ${name} with ${code} and keeps both applications serving`, async () => {
      const before = sender.received.length;
      sender.send(frame);
      const refusal = await sender.next((f) => f.type === 'tool.error' && sender.received.indexOf(f) >= before);
      assert.equal(refusal.payload.code, code, JSON.stringify(refusal.payload));
      assert.equal(typeof refusal.payload.message, 'string');
      const id = typeof frame === 'object' ? (frame.id as string | undefined) : undefined;
      if (id !== undefined) assert.equal(refusal.replyTo, id, 'the refusal names the frame');
      await stillServes(sender, 'sender.ping');
      await stillServes(bystander, 'bystander.ping');
    });
  }

  it('refuses a binary frame the same way', async () => {
    sender.ws.send(Buffer.from([1, 2, 3]), { binary: true });
    const refusal = await sender.nextOfType('tool.error', (f) => /binary/i.test(f.payload.message));
    assert.equal(refusal.payload.code, 'protocol_error');
    await stillServes(sender, 'sender.ping');
  });

  it('fails the call a malformed answer replies to, instead of leaving it waiting', async () => {
    const outcome = agentCall(d, 'sender.ping', {});
    const call = await sender.nextOfType('tool.call');
    sender.answer(call, 'tool.result', { success: true, result: 'no toolId' });
    const done = await outcome;
    assert.equal(!done.ok && done.error.code, 'protocol_error');
    const badWrapper = agentCall(d, 'sender.ping', {});
    const second = await sender.nextOfType('tool.call');
    sender.answer(second, 'tool.result', { ...wrap({}), data: 'not-base64!' });
    const refused = await badWrapper;
    assert.equal(!refused.ok && refused.error.code, 'invalid_encoding');
    await stillServes(sender, 'sender.ping');
  });

  it('closes only the sender of a frame above the 2 MiB limit (1009)', async () => {
    const big = await RawApp.connect(d, (await d.daemon.core.tokens.createAppToken('oversized', 'read')).token);
    big.send({ type: 'tool.catalog', id: 'huge', payload: { pad: 'x'.repeat(DEFAULT_FRAME_BYTES) } });
    assert.equal((await big.closed).code, 1009);
    await stillServes(bystander, 'bystander.ping');
  });

  it(`closes an application after ${MAX_APP_PROTOCOL_ERRORS} malformed frames (1008), and only that one`, async () => {
    const noisy = await RawApp.connect(d, (await d.daemon.core.tokens.createAppToken('noisy', 'read')).token);
    for (let i = 0; i < MAX_APP_PROTOCOL_ERRORS; i++) noisy.send('not json');
    const closed = await noisy.closed;
    assert.equal(closed.code, 1008);
    assert.equal(noisy.received.filter((f: Frame) => f.type === 'tool.error').length, MAX_APP_PROTOCOL_ERRORS);
    await stillServes(bystander, 'bystander.ping');
  });
});
