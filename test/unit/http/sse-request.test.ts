import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BerthError } from '../../../src/protocol/errors/index.js';
import { parseEventStreamRequest, subscribeOptionsOf } from '../../../src/http/sse-request.js';

const EPOCH = '4dbc74b0-ea43-411c-8bab-2df7fbaf9e99';

describe('parsing GET /session/:id/events (spec §7.1)', () => {
  it('reads a decimal Last-Event-ID and a well-formed epoch that comes with it', () => {
    const r = parseEventStreamRequest({ 'last-event-id': '2', 'x-qwen-event-epoch': EPOCH });
    assert.deepEqual(r, { lastEventId: 2, epoch: EPOCH, snapshot: false });
    assert.deepEqual(parseEventStreamRequest({ 'last-event-id': '0' }), { lastEventId: 0, snapshot: false });
  });

  it('ignores a malformed or unsafe cursor, and then the epoch too', () => {
    for (const bad of ['abc', '', '-1', '1.5', ' 2', '0x10', '9007199254740992', '1e3', '2, 3']) {
      assert.deepEqual(parseEventStreamRequest({ 'last-event-id': bad, 'x-qwen-event-epoch': EPOCH }), { snapshot: false }, bad);
    }
    assert.equal(parseEventStreamRequest({ 'last-event-id': '9007199254740991' }).lastEventId, Number.MAX_SAFE_INTEGER);
    assert.deepEqual(parseEventStreamRequest({ 'x-qwen-event-epoch': EPOCH }), { snapshot: false });
  });

  it('treats an epoch outside the published pattern as absent', () => {
    for (const bad of ['bad epoch!!', '', 'x'.repeat(65), 'a.b']) {
      assert.deepEqual(parseEventStreamRequest({ 'last-event-id': '2', 'x-qwen-event-epoch': bad }), { lastEventId: 2, snapshot: false });
    }
    assert.equal(parseEventStreamRequest({ 'last-event-id': '2', 'x-qwen-event-epoch': 'stale-epoch-0001' }).epoch, 'stale-epoch-0001');
  });

  it('accepts maxQueued from 16 to 2048 and refuses anything else with invalid_max_queued', () => {
    assert.equal(parseEventStreamRequest({}, { maxQueued: '16' }).maxQueued, 16);
    assert.equal(parseEventStreamRequest({}, { maxQueued: '2048' }).maxQueued, 2048);
    const refused = (value: string | string[], message: string) =>
      assert.throws(
        () => parseEventStreamRequest({}, { maxQueued: value }),
        (e: unknown) => e instanceof BerthError && e.code === 'invalid_max_queued' && e.status === 400 && e.message === message,
        String(value),
      );
    refused('5', '`maxQueued` must be in [16, 2048]');
    refused('4096', '`maxQueued` must be in [16, 2048]');
    for (const bad of ['abc', '', '16.0', '+16', ' 16', ['16', '32']]) refused(bad, '`maxQueued` must be a decimal integer');
  });

  it('turns snapshot on only for snapshot=1', () => {
    assert.equal(parseEventStreamRequest({}, { snapshot: '1' }).snapshot, true);
    for (const v of ['0', 'true', '', ['1', '1']]) assert.equal(parseEventStreamRequest({}, { snapshot: v }).snapshot, false);
  });

  it('keeps telemetry best effort: unknown reasons read as unknown, non-UUID stream ids are dropped', () => {
    const r = parseEventStreamRequest({}, { connectReason: 'resume', previousStreamId: '89FABF4D-9A8C-4A2E-AB66-8A4B2793444E' });
    assert.equal(r.connectReason, 'resume');
    assert.equal(r.previousStreamId, '89fabf4d-9a8c-4a2e-ab66-8a4b2793444e');
    const odd = parseEventStreamRequest({}, { connectReason: 'because', previousStreamId: 'nope' });
    assert.equal(odd.connectReason, 'unknown');
    assert.equal(odd.previousStreamId, undefined);
  });

  it('builds bus options and asks for the snapshot payload only when it was requested', () => {
    let asked = 0;
    const snapshot = () => {
      asked++;
      return { sessionId: 's', currentModelId: null, currentApprovalMode: null };
    };
    const live = subscribeOptionsOf(parseEventStreamRequest({}, {}), snapshot);
    assert.deepEqual(live, {});
    assert.equal(asked, 0);
    const full = subscribeOptionsOf(
      parseEventStreamRequest({ 'last-event-id': '3', 'x-qwen-event-epoch': EPOCH }, { maxQueued: '64', snapshot: '1' }),
      snapshot,
      'client_1',
    );
    assert.deepEqual(full, {
      lastEventId: 3,
      epoch: EPOCH,
      maxQueued: 64,
      snapshot: { sessionId: 's', currentModelId: null, currentApprovalMode: null },
      clientId: 'client_1',
    });
    assert.equal(asked, 1);
  });
});
