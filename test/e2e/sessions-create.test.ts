import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { validatorFor } from '../../src/http/contract.js';
import { startStack, type Stack } from '../support/stack.js';
import { createSession, EventReader, newSession } from '../support/session-client.js';
import { removeDir, tempDir } from '../support/tmp.js';
import type { TestDaemon } from '../support/daemon.js';

/** `POST /session` options over raw HTTP (spec §5.1, §2.6): scope, caller ids, model service, source, capacity, client ids. */

const sessionShape = validatorFor('Session');
const CLIENT_ID = /^client_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('POST /session: scope, caller ids, source and model service', () => {
  let s: Stack;
  let d: TestDaemon;
  const primary = tempDir('berth-ws1-');
  const second = tempDir('berth-ws2-');
  before(async () => {
    // Two workspaces, so the shared session is per workspace.
    s = await startStack({ workspace: primary, config: { workspaces: [primary, second] } });
    d = s.daemon;
  });
  after(async () => {
    await s.close();
    removeDir(primary);
    removeDir(second);
  });

  it('single scope (the default) attaches to the workspace shared session; thread always creates', async () => {
    const first = await createSession(d, {});
    assert.equal(first.status, 200);
    assert.ok(sessionShape(first.body), JSON.stringify(sessionShape.errors));
    assert.equal(first.body.attached, false);
    assert.equal(first.body.hasActivePrompt, undefined, 'only attaches report hasActivePrompt');
    const again = await createSession(d, { sessionScope: 'single' });
    assert.equal(again.body.sessionId, first.body.sessionId);
    assert.equal(again.body.attached, true);
    assert.equal(again.body.hasActivePrompt, false);
    assert.ok(sessionShape(again.body));
    const thread = await createSession(d, { sessionScope: 'thread' });
    assert.equal(thread.body.attached, false);
    assert.notEqual(thread.body.sessionId, first.body.sessionId);
    const other = await createSession(d, { cwd: second });
    assert.equal(other.body.attached, false, 'another workspace has its own shared session');
    assert.equal(other.body.workspaceCwd, second);
    assert.equal((await createSession(d, { cwd: second })).body.sessionId, other.body.sessionId);
    // Once the shared session is closed, the next single create makes a new one.
    assert.equal((await d.json('DELETE', `/session/${first.body.sessionId}`)).status, 204);
    const fresh = await createSession(d, {});
    assert.equal(fresh.body.attached, false);
    assert.notEqual(fresh.body.sessionId, first.body.sessionId);
    await d.json('DELETE', `/session/${fresh.body.sessionId}`);
  });

  it('concurrent single creates coalesce into one session; exactly one caller sees attached:false', async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, () => createSession(d, { cwd: d.workspace })));
    assert.ok(answers.every((a) => a.status === 200));
    assert.equal(new Set(answers.map((a) => a.body.sessionId)).size, 1);
    assert.equal(answers.filter((a) => a.body.attached === false).length, 1);
    assert.equal(new Set(answers.map((a) => a.body.clientId)).size, 6, 'each caller got its own client id');
    const status = await d.json('GET', `/session/${answers[0]!.body.sessionId}/status`);
    assert.equal(status.body.clientCount, 6);
    await d.json('DELETE', `/session/${answers[0]!.body.sessionId}`);
  });

  it('issues client ids: a registered id is reused on attach, an unregistered one is ignored and a fresh id minted', async () => {
    const created = await createSession(d, {});
    const mine = created.body.clientId;
    assert.match(mine, CLIENT_ID);
    const reused = await createSession(d, {}, { 'x-qwen-client-id': mine });
    assert.equal(reused.body.attached, true);
    assert.equal(reused.body.clientId, mine);
    const stranger = await createSession(d, {}, { 'x-qwen-client-id': 'my-client-1' });
    assert.equal(stranger.body.attached, true);
    assert.match(stranger.body.clientId, CLIENT_ID);
    assert.notEqual(stranger.body.clientId, mine);
    const thread = await createSession(d, { sessionScope: 'thread' }, { 'x-qwen-client-id': mine });
    assert.notEqual(thread.body.clientId, mine, 'an id registered on another session is not registered on a new one');
    const status = await d.json('GET', `/session/${created.body.sessionId}/status`);
    assert.equal(status.body.clientCount, 2, 'the reused id registered once');
    // The ignored id is not registered: using it on the session is refused.
    const refused = await d.json('POST', `/session/${created.body.sessionId}/heartbeat`, {}, { 'x-qwen-client-id': 'my-client-1' });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.code, 'invalid_client_id');
    await d.json('DELETE', `/session/${created.body.sessionId}`);
  });

  it('accepts caller session ids of UUID versions 1 to 5, lowercased, always as a fresh thread', async () => {
    const shared = await createSession(d, {});
    const ids = [
      'C232AB00-9414-11EC-B3C8-9F6BDECED846', // v1, uppercase
      '000003e8-1d0a-21ec-a000-0242ac120002', // v2
      '6fa459ea-ee8a-3ca4-894e-db77e160355e', // v3
      '16fd2706-8baf-433b-82eb-8c7fada847da', // v4
      '886313e1-3b8a-5372-9b90-0c9aee199e5d', // v5
    ];
    for (const id of ids) {
      const res = await createSession(d, { sessionId: id, sessionScope: 'single' });
      assert.equal(res.status, 200, `${id}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.sessionId, id.toLowerCase());
      assert.equal(res.body.attached, false, 'a caller id never attaches, even with single scope');
      assert.equal((await d.json('GET', `/session/${id.toLowerCase()}/status`)).status, 200);
    }
    const nullId = await createSession(d, { sessionId: null });
    assert.equal(nullId.body.sessionId, shared.body.sessionId, 'a null sessionId equals omission');
    assert.equal(nullId.body.attached, true);
  });

  it('refuses v7, v8 and malformed caller ids with 400 invalid_session_id', async () => {
    for (const id of ['017f22e2-79b0-7cc3-98c4-dc0c0c07398f', '017f22e2-79b0-8cc3-98c4-dc0c0c07398f', '16fd2706-8baf-433b-c2eb-8c7fada847da', '16fd27068baf433b82eb8c7fada847da', '']) {
      const res = await createSession(d, { sessionId: id });
      assert.equal(res.status, 400, id);
      assert.equal(res.body.code, 'invalid_session_id', id);
    }
  });

  it('refuses a caller id that is live or was used by a closed session with 409 session_id_conflict', async () => {
    const id = '9b2f3c4d-1e2f-4a5b-8c6d-7e8f9a0b1c2d';
    assert.equal((await createSession(d, { sessionId: id })).status, 200);
    const live = await createSession(d, { sessionId: id.toUpperCase() });
    assert.equal(live.status, 409);
    assert.equal(live.body.code, 'session_id_conflict');
    assert.equal(live.body.sessionId, id);
    assert.equal(live.body.conflict, 'live');
    assert.equal((await d.json('DELETE', `/session/${id}`)).status, 204);
    const persisted = await createSession(d, { sessionId: id });
    assert.equal(persisted.status, 409);
    assert.equal(persisted.body.conflict, 'persisted');
  });

  it('echoes sourceType and sourceId with sourcePersisted, and keeps them in status', async () => {
    const res = await createSession(d, { sessionScope: 'thread', sourceType: 'ci', sourceId: 'pipeline-42' });
    assert.equal(res.body.sourceType, 'ci');
    assert.equal(res.body.sourceId, 'pipeline-42');
    assert.equal(res.body.sourcePersisted, true);
    const status = (await d.json('GET', `/session/${res.body.sessionId}/status`)).body;
    assert.equal(status.sourceType, 'ci');
    assert.equal(status.sourceId, 'pipeline-42');
    const plain = await createSession(d, { sessionScope: 'thread' });
    assert.equal(plain.body.sourcePersisted, undefined);
    assert.equal(plain.body.sourceType, undefined);
  });

  it('fails softly on an unknown modelServiceId: 200, modelApplied:false and a model_switch_failed event', async () => {
    const res = await createSession(d, { sessionScope: 'thread', modelServiceId: 'no-such-service' });
    assert.equal(res.status, 200);
    assert.equal(res.body.modelApplied, false);
    const events = await EventReader.open(d, res.body.sessionId, { lastEventId: 0 });
    const failed = await events.type('model_switch_failed');
    assert.equal(failed.data.sessionId, res.body.sessionId);
    assert.equal(failed.data.requestedModelId, 'no-such-service');
    assert.ok(failed.data.error.length > 0);
    events.close();
    const context = (await d.json('GET', `/session/${res.body.sessionId}/context`)).body;
    assert.equal(context.state.models.currentModelId, 'scripted/scripted-model', 'the session runs on the default service');
    const known = await createSession(d, { sessionScope: 'thread', modelServiceId: 'scripted' });
    assert.equal(known.body.modelApplied, true);
    assert.equal((await createSession(d, { sessionScope: 'thread' })).body.modelApplied, undefined, 'absent unless asked for');
  });

  it('publishes approval_mode_changed as the first event when approvalMode is given', async () => {
    const { sessionId, clientId } = await newSession(d, { approvalMode: 'yolo' });
    const events = await EventReader.open(d, sessionId, { lastEventId: 0 });
    const changed = await events.type('approval_mode_changed');
    assert.equal(changed.id, 1);
    assert.deepEqual(changed.data, { sessionId, previous: 'default', next: 'yolo', persisted: false });
    assert.equal(changed.originatorClientId, clientId);
    events.close();
  });
});

describe('--max-sessions (spec §5.1 capacity)', () => {
  it('refuses a fresh session past the cap with 503 session_limit_exceeded and Retry-After 5; attaches still work', async () => {
    const s = await startStack({ config: { maxSessions: 2 } });
    try {
      const d = s.daemon;
      const shared = await createSession(d, {});
      const thread = await createSession(d, { sessionScope: 'thread' });
      assert.equal(thread.status, 200);
      const full = await createSession(d, { sessionScope: 'thread' });
      assert.equal(full.status, 503);
      assert.equal(full.headers.get('retry-after'), '5');
      assert.equal(full.body.code, 'session_limit_exceeded');
      assert.equal(full.body.limit, 2);
      assert.equal(full.body.scope, 'total');
      assert.equal(full.body.retryable, true);
      assert.ok(validatorFor('Error')(full.body));
      const withId = await createSession(d, { sessionId: '3c1d0e2f-4a5b-4c6d-8e7f-9a0b1c2d3e4f' });
      assert.equal(withId.status, 503);
      const attach = await createSession(d, {});
      assert.equal(attach.status, 200, 'attaching to the shared session needs no new slot');
      assert.equal(attach.body.sessionId, shared.body.sessionId);
      assert.equal((await d.json('GET', '/capabilities')).body.limits.maxTotalSessions, 2);
      assert.equal((await d.json('DELETE', `/session/${thread.body.sessionId}`)).status, 204);
      assert.equal((await createSession(d, { sessionScope: 'thread' })).status, 200, 'a closed session frees its slot');
    } finally {
      await s.close();
    }
  });
});
