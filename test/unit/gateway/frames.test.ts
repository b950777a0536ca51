import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BerthError } from '../../../src/protocol/errors/index.js';
import { parseHostFrame, parseOwnerFrame, RefusedCall, UnreadableFrame } from '../../../src/protocol/gateway/frames.js';
import { reconnectDelay } from '../../../src/gateway/owner/backoff.js';
import { channelUrl } from '../../../src/gateway/owner/channel-url.js';
import { decodeResult, encodeResult } from '../../../src/protocol/gateway/result-text.js';

const call = {
  type: 'call',
  protocol: 1,
  id: 'c1',
  workspaceId: 'proj',
  sessionId: 's1',
  intention: 'fix it',
  tool: 'workspace_read',
  args: '{"path":"a"}',
};

const codeOf = (fn: () => unknown): string => {
  try {
    fn();
    return 'ok';
  } catch (err) {
    return (err as BerthError).code;
  }
};

describe('seed-000 frames', () => {
  test('A reads ready and call frames exactly as the seed gives them', () => {
    assert.deepEqual(parseHostFrame('{"type":"ready","protocol":1}'), { type: 'ready', protocol: 1 });
    assert.deepEqual(parseHostFrame(JSON.stringify(call)), call);
  });

  test('a frame that is not JSON is unreadable; one of another shape or protocol is a protocol error', () => {
    assert.throws(() => parseHostFrame('{'), UnreadableFrame);
    assert.equal(codeOf(() => parseHostFrame('[1]')), 'protocol_error');
    assert.equal(codeOf(() => parseHostFrame('{"type":"ready","protocol":2}')), 'protocol_error');
    assert.equal(codeOf(() => parseHostFrame('{"type":"result"}')), 'protocol_error');
  });

  test('a call with an id and a session but a bad field is refused as that call, so A can answer it', () => {
    for (const bad of [{ protocol: 2 }, { args: { path: 'a' } }, { tool: '' }, { intention: 7 }, { workspaceId: null }]) {
      let refused: unknown;
      try {
        parseHostFrame(JSON.stringify({ ...call, ...bad }));
      } catch (err) {
        refused = err;
      }
      assert.ok(refused instanceof RefusedCall, JSON.stringify(bad));
      assert.deepEqual([refused.callId, refused.sessionId, refused.code], ['c1', 's1', 'protocol_error']);
    }
    assert.equal(codeOf(() => parseHostFrame(JSON.stringify({ ...call, id: undefined }))), 'protocol_error');
  });

  test('B reads only result frames with string id, session and result', () => {
    assert.deepEqual(parseOwnerFrame('{"type":"result","id":"c1","sessionId":"s1","result":"{}"}'), { type: 'result', id: 'c1', sessionId: 's1', result: '{}' });
    assert.equal(codeOf(() => parseOwnerFrame('{"type":"result","id":"c1","sessionId":"s1","result":{}}')), 'protocol_error');
    assert.equal(codeOf(() => parseOwnerFrame(JSON.stringify(call))), 'protocol_error');
  });
});

describe('result text', () => {
  test('a success is the tool value; an error is {code, message, retryable}', () => {
    const ok = encodeResult({ ok: true, result: { value: { path: 'a', content: 'text' } } });
    assert.deepEqual(JSON.parse(ok), { path: 'a', content: 'text' });
    assert.deepEqual(decodeResult(ok), { value: { path: 'a', content: 'text' } }, 'a string `content` stays part of the value');
    const failed = encodeResult({ ok: false, error: { code: 'stale_hash', message: 'changed', retryable: false } });
    assert.deepEqual(JSON.parse(failed), { code: 'stale_hash', message: 'changed', retryable: false });
    assert.throws(() => decodeResult(failed), (e: BerthError) => e.code === 'stale_hash' && e.message === 'changed');
  });

  test('model-facing blocks (an image) travel in contentBlocks and come back as content', () => {
    const image = { type: 'image' as const, data: 'aGk=', mimeType: 'image/png' };
    const text = encodeResult({ ok: true, result: { value: { path: 'i.png' }, content: [image] } });
    assert.deepEqual(decodeResult(text), { value: { path: 'i.png' }, content: [image] });
  });

  test('an error code this daemon does not know keeps its text as details.remoteCode', () => {
    assert.throws(
      () => decodeResult('{"code":"owner_specific","message":"no","retryable":true}'),
      (e: BerthError) => e.code === 'tool_failed' && e.details.remoteCode === 'owner_specific',
    );
    assert.throws(() => decodeResult('not json'), (e: BerthError) => e.code === 'protocol_error');
  });
});

describe('the owner dials', () => {
  test('reconnect delays double from the base with jitter, within the ceiling', () => {
    assert.equal(reconnectDelay(0, 250, 15_000, () => 0), 125);
    assert.equal(reconnectDelay(0, 250, 15_000, () => 1), 250);
    assert.equal(reconnectDelay(3, 250, 15_000, () => 1), 2000);
    assert.equal(reconnectDelay(50, 250, 15_000, () => 0.5), 11_250);
    assert.equal(reconnectDelay(50, 250, 15_000, () => 1), 15_000);
  });

  test('the channel URL is built from the base URL and never carries credentials', () => {
    assert.equal(channelUrl('http://127.0.0.1:4170', 'proj'), 'ws://127.0.0.1:4170/api/ai-gateway/v1/workspaces/proj/channel');
    assert.equal(channelUrl('https://h.example/berth/', 'proj'), 'wss://h.example/berth/api/ai-gateway/v1/workspaces/proj/channel');
    assert.throws(() => channelUrl('http://u:p@h', 'proj'), /must not carry credentials/);
    assert.throws(() => channelUrl('http://h/?token=x', 'proj'), /no query string/);
    assert.throws(() => channelUrl('ftp://h', 'proj'), /http, https, ws or wss/);
  });
});

test('an owner result nested thousands deep is the tool error nesting_too_deep, not a value that ends the turn', () => {
  let text = '1';
  for (let i = 0; i < 5000; i++) text = `{"a":${text}}`;
  assert.throws(
    () => decodeResult(text),
    (err: unknown) => err instanceof BerthError && err.code === 'nesting_too_deep' && !err.retryable,
  );
  assert.deepEqual(decodeResult('{"a":{"b":[1]}}'), { value: { a: { b: [1] } } });
});
