import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { validatorFor } from '../../src/http/contract.js';
import { startStack, type Stack } from '../support/stack.js';
import { createSession, EventReader, eventually, newSession, submit, text } from '../support/session-client.js';
import type { JsonResponse, TestDaemon } from '../support/daemon.js';

/**
 * Every error status the seed OpenAPI lists for the session, prompt and event
 * routes that Berth can produce, over raw HTTP, each with its catalogue code
 * and an `Error`-shaped body (spec §13). Votes live in permissions-votes.
 */

const errorShape = validatorFor('Error');
const UNKNOWN_ID = '6f0f3c1e-8d0a-4c6e-9a55-0d6f1b2c3d4e';

function refused(res: JsonResponse, status: number, code: string): any {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.body.code, code, JSON.stringify(res.body));
  assert.equal(res.body.status, status);
  assert.equal(typeof res.body.error, 'string');
  assert.ok(errorShape(res.body), JSON.stringify(errorShape.errors));
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  return res.body;
}

describe('client API error statuses of the session routes (spec §5-§7, §13)', () => {
  let s: Stack;
  let d: TestDaemon;
  let sessionId: string;
  let clientId: string;
  before(async () => {
    s = await startStack();
    d = s.daemon;
    ({ sessionId, clientId } = await newSession(d));
  });
  after(() => s.close());

  it('refuses a malformed body on POST /session with 400: bad JSON, a non-object, an unknown field', async () => {
    refused(await d.json('POST', '/session', '{"cwd":'), 400, 'invalid_json');
    refused(await d.json('POST', '/session', '[]'), 400, 'invalid_request');
    const extra = refused(await d.json('POST', '/session', { sessionScope: 'thread', colour: 'blue' }), 400, 'invalid_request');
    assert.equal(extra.field, 'colour');
    assert.match(extra.error, /^unknown field `colour`/);
  });

  it('refuses bad POST /session fields with their own codes', async () => {
    refused(await createSession(d, { sessionScope: 'shared' }), 400, 'invalid_session_scope');
    refused(await createSession(d, { sessionId: 'not-a-uuid' }), 400, 'invalid_session_id');
    refused(await createSession(d, { approvalMode: 'reckless' }), 400, 'invalid_approval_mode');
    const mismatch = refused(await createSession(d, { cwd: '/no/such/workspace' }), 400, 'workspace_mismatch');
    assert.equal(mismatch.boundWorkspace, d.workspace);
    assert.equal(mismatch.requestedWorkspace, '/no/such/workspace');
  });

  it('refuses a malformed X-Qwen-Client-Id with 400 invalid_client_id on every route that reads it', async () => {
    const bad = { 'x-qwen-client-id': 'has space' };
    const routes: Array<[string, string, unknown]> = [
      ['POST', '/session', {}],
      ['DELETE', `/session/${sessionId}`, undefined],
      ['POST', `/session/${sessionId}/heartbeat`, {}],
      ['PATCH', `/session/${sessionId}/metadata`, { displayName: 'x' }],
      ['POST', `/session/${sessionId}/model`, { modelId: 'scripted/scripted-model' }],
      ['POST', `/session/${sessionId}/prompt`, { prompt: text('x') }],
      ['POST', `/session/${sessionId}/cancel`, {}],
      ['GET', `/session/${sessionId}/pending-prompts`, undefined],
      ['GET', `/session/${sessionId}/events`, undefined],
      ['POST', `/session/${sessionId}/permission/${UNKNOWN_ID}`, { outcome: { outcome: 'cancelled' } }],
      ['POST', `/permission/${UNKNOWN_ID}`, { outcome: { outcome: 'cancelled' } }],
    ];
    for (const [method, path, body] of routes) {
      const res = await d.json(method, path, body, bad);
      assert.equal(res.status, 400, `${method} ${path}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, 'invalid_client_id', `${method} ${path}`);
    }
    // An over-long id is malformed too; an empty header counts as absent.
    refused(await d.json('POST', `/session/${sessionId}/heartbeat`, {}, { 'x-qwen-client-id': 'a'.repeat(129) }), 400, 'invalid_client_id');
    assert.equal((await d.json('POST', `/session/${sessionId}/heartbeat`, {}, { 'x-qwen-client-id': '' })).status, 200);
    assert.equal((await d.json('GET', `/session/${sessionId}/status`)).status, 200, 'the session is still there');
  });

  it('accepts any X-Qwen-Client-Id on status and context, which take none in the seed OpenAPI (no 400 listed)', async () => {
    for (const id of ['has space', 'client_not-registered-here', clientId]) {
      for (const path of [`/session/${sessionId}/status`, `/session/${sessionId}/context`]) {
        const res = await d.json('GET', path, undefined, { 'x-qwen-client-id': id });
        assert.equal(res.status, 200, `${path} with ${id}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.sessionId, sessionId);
      }
    }
  });

  it('refuses a well-formed but unregistered client id on the live-session routes, naming session and client', async () => {
    const stranger = { 'x-qwen-client-id': 'client_not-registered-here' };
    const routes: Array<[string, string, unknown]> = [
      ['POST', `/session/${sessionId}/heartbeat`, {}],
      ['PATCH', `/session/${sessionId}/metadata`, { displayName: 'x' }],
      ['POST', `/session/${sessionId}/model`, { modelId: 'scripted/scripted-model' }],
      ['POST', `/session/${sessionId}/prompt`, { prompt: text('x') }],
      ['POST', `/session/${sessionId}/cancel`, {}],
      ['GET', `/session/${sessionId}/pending-prompts`, undefined],
      ['DELETE', `/session/${sessionId}`, undefined],
    ];
    for (const [method, path, body] of routes) {
      const res = await d.json(method, path, body, stranger);
      assert.equal(res.status, 400, `${method} ${path}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, 'invalid_client_id', `${method} ${path}`);
      assert.equal(res.body.sessionId, sessionId);
      assert.equal(res.body.clientId, 'client_not-registered-here');
    }
    // The session was not closed by the refused DELETE, and the registered id still works everywhere.
    const ok = await d.json('POST', `/session/${sessionId}/heartbeat`, {}, { 'x-qwen-client-id': clientId });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.clientId, clientId);
  });

  it('answers 404 session_not_found with the session id on every live-session route for an unknown session', async () => {
    const routes: Array<[string, string, unknown]> = [
      ['DELETE', `/session/${UNKNOWN_ID}`, undefined],
      ['POST', `/session/${UNKNOWN_ID}/heartbeat`, {}],
      ['PATCH', `/session/${UNKNOWN_ID}/metadata`, { displayName: 'x' }],
      ['POST', `/session/${UNKNOWN_ID}/model`, { modelId: 'scripted/scripted-model' }],
      ['GET', `/session/${UNKNOWN_ID}/status`, undefined],
      ['GET', `/session/${UNKNOWN_ID}/context`, undefined],
      ['POST', `/session/${UNKNOWN_ID}/prompt`, { prompt: text('x') }],
      ['POST', `/session/${UNKNOWN_ID}/cancel`, {}],
      ['GET', `/session/${UNKNOWN_ID}/pending-prompts`, undefined],
      ['GET', `/session/${UNKNOWN_ID}/events`, undefined],
    ];
    for (const [method, path, body] of routes) {
      const res = await d.json(method, path, body);
      assert.equal(res.status, 404, `${method} ${path}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, 'session_not_found', `${method} ${path}`);
      assert.equal(res.body.sessionId, UNKNOWN_ID);
      assert.ok(errorShape(res.body));
    }
  });

  it('checks the metadata path id first: 400 invalid_session_id for a malformed id, 404 for an unknown one', async () => {
    refused(await d.json('PATCH', '/session/not-a-session/metadata', { displayName: 'x' }), 400, 'invalid_session_id');
    refused(await d.json('PATCH', `/session/${UNKNOWN_ID}/metadata`, { displayName: 'x' }), 404, 'session_not_found');
  });

  it('refuses invalid metadata with 400 invalid_metadata and the field', async () => {
    const path = `/session/${sessionId}/metadata`;
    for (const displayName of ['', '   ', 'tab\there', 'bell\u0007', 'del\u007f', 42]) {
      const body = refused(await d.json('PATCH', path, { displayName }), 400, 'invalid_metadata');
      assert.equal(body.field, 'displayName', JSON.stringify(displayName));
    }
    for (const pr of [{ number: 0, url: 'https://x.test/pr/0' }, { number: 1, url: 'ftp://x.test/1' }, { number: 1 }, { number: 1, url: 'https://x.test', state: 'draft' }]) {
      const body = refused(await d.json('PATCH', path, { pr }), 400, 'invalid_metadata');
      assert.match(body.field, /^pr/);
    }
    refused(await d.json('PATCH', path, { title: 'x' }), 400, 'invalid_metadata');
  });

  it('refuses a missing, empty or blank modelId with 400 and an unknown one with 404 model_not_found', async () => {
    const path = `/session/${sessionId}/model`;
    refused(await d.json('POST', path, {}), 400, 'invalid_model_id');
    refused(await d.json('POST', path, { modelId: '' }), 400, 'invalid_model_id');
    refused(await d.json('POST', path, { modelId: '   ' }), 400, 'invalid_model_id');
    refused(await d.json('POST', path, { modelId: 'scripted/scripted-model', extra: 1 }), 400, 'invalid_model_id');
    const unknown = refused(await d.json('POST', path, { modelId: 'scripted/no-such-model' }), 404, 'model_not_found');
    assert.equal(unknown.modelId, 'scripted/no-such-model');
  });

  it('refuses malformed prompts with 400 and their codes, before any prompt is admitted', async () => {
    const path = `/session/${sessionId}/prompt`;
    refused(await d.json('POST', path, '{"prompt":'), 400, 'invalid_json');
    refused(await d.json('POST', path, {}), 400, 'invalid_prompt');
    refused(await d.json('POST', path, { prompt: [] }), 400, 'invalid_prompt');
    refused(await d.json('POST', path, { prompt: 'hello' }), 400, 'invalid_prompt');
    refused(await d.json('POST', path, { prompt: ['hello'] }), 400, 'invalid_prompt');
    refused(await d.json('POST', path, { prompt: [{ type: 'text' }] }), 400, 'invalid_prompt');
    for (const deadlineMs of [0, -1, 1.5, '100']) {
      refused(await d.json('POST', path, { prompt: text('x'), deadlineMs }), 400, 'invalid_deadline_ms');
    }
    refused(await d.json('POST', path, { prompt: text('x'), eventDetailMode: 'verbose' }), 400, 'invalid_event_detail_mode');
    refused(
      await d.json('POST', path, { prompt: text('x'), delivery: { kind: 'channel', target: { channelName: 'c', type: 'user', id: 'u' } } }),
      400,
      'channel_delivery_invalid',
    );
    const pending = await d.json('GET', `/session/${sessionId}/pending-prompts`);
    assert.deepEqual(pending.body, { pendingPrompts: [] });
    assert.equal(s.model.completions().length, 0, 'the model was never asked');
  });

  it('refuses a body over 10 MB with 413 body_too_large in the catalogue shape', async () => {
    const big = JSON.stringify({ prompt: text('x'.repeat(10 * 1024 * 1024)) });
    const body = refused(await d.json('POST', `/session/${sessionId}/prompt`, big), 413, 'body_too_large');
    assert.match(body.error, /too large/i);
    refused(await d.json('POST', '/session', JSON.stringify({ sourceId: 'y'.repeat(10 * 1024 * 1024 + 1) })), 413, 'body_too_large');
  });

  it('answers 503 prompt_queue_full with sessionId, limit, pendingCount and Retry-After 5 when the FIFO is full', async () => {
    const { sessionId: busy } = await newSession(d);
    s.model.enqueue({ kind: 'hang' });
    const accepted: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await submit(d, busy, `p${i}`);
      assert.equal(res.status, 202);
      accepted.push(res.body.promptId);
    }
    const full = await submit(d, busy, 'one too many');
    const body = refused(full, 503, 'prompt_queue_full');
    assert.equal(full.headers.get('retry-after'), '5');
    assert.equal(body.sessionId, busy);
    assert.equal(body.limit, 5);
    assert.equal(body.pendingCount, 5);
    assert.equal(body.retryable, true);
    const pending = await d.json('GET', `/session/${busy}/pending-prompts`);
    assert.deepEqual(pending.body.pendingPrompts.map((p: { promptId: string }) => p.promptId), accepted);
    assert.equal((await d.json('DELETE', `/session/${busy}`)).status, 204);
  });

  it('refuses maxQueued outside 16-2048 or not decimal with 400 invalid_max_queued before the stream opens', async () => {
    for (const q of ['15', '2049', 'abc', '', '-1', '16.5', '0x20']) {
      const res = await d.json('GET', `/session/${sessionId}/events?maxQueued=${q}`);
      refused(res, 400, 'invalid_max_queued');
    }
    for (const q of ['16', '2048']) {
      const stream = await EventReader.open(d, sessionId, { query: `?maxQueued=${q}`, lastEventId: null });
      assert.equal(stream.response.headers.get('content-type'), 'text/event-stream');
      stream.close();
    }
  });

  it('answers the 65th subscriber of a session with 429 subscriber_limit_exceeded, limit 64 and Retry-After 5', async () => {
    const { sessionId: crowded } = await newSession(d);
    const streams = await Promise.all(Array.from({ length: 64 }, () => EventReader.open(d, crowded, { lastEventId: null })));
    try {
      const res = await d.json('GET', `/session/${crowded}/events`);
      const body = refused(res, 429, 'subscriber_limit_exceeded');
      assert.equal(body.limit, 64);
      assert.equal(res.headers.get('retry-after'), '5');
      const health = await d.json('GET', '/health?deep=1');
      assert.ok(health.body.connectedClients >= 64);
    } finally {
      for (const st of streams) st.close();
    }
    // Slots free once the subscribers leave.
    await eventually(() => d.json('GET', '/health?deep=1'), (h) => h.body.connectedClients === 0);
    const again = await EventReader.open(d, crowded, { lastEventId: null });
    again.close();
  });

  it('answers an unknown route with 404 route_not_found in the catalogue shape', async () => {
    refused(await d.json('GET', '/session'), 404, 'route_not_found');
    refused(await d.json('POST', `/session/${sessionId}/nothing`, {}), 404, 'route_not_found');
  });
});

describe('client API refusals before any route runs (spec §2)', () => {
  it('refuses a channel token and a foreign Origin with 403, and a missing bearer with 401, on the session routes', async () => {
    const s = await startStack({ config: { token: 'owner-secret-token' } });
    try {
      const d = s.daemon;
      const channel = (await d.daemon.core.tokens.createChannelToken(d.daemon.core.workspaces.primary().id)).token;
      const asChannel = { authorization: `Bearer ${channel}` };
      refused(await d.json('POST', '/session', {}, asChannel), 403, 'token_scope_denied');
      const { sessionId } = await newSession(d);
      refused(await d.json('POST', `/permission/${UNKNOWN_ID}`, { outcome: { outcome: 'cancelled' } }, asChannel), 403, 'token_scope_denied');
      refused(await d.json('POST', `/session/${sessionId}/prompt`, { prompt: text('x') }, asChannel), 403, 'token_scope_denied');
      const cors = await d.json('POST', '/session', {}, { origin: 'https://evil.example' });
      assert.equal(cors.status, 403);
      assert.equal(cors.body.code, 'cors_denied');
      const anon = await d.json('PATCH', `/session/${sessionId}/metadata`, { displayName: 'x' }, { authorization: '' });
      assert.equal(anon.status, 401);
      assert.equal(anon.body.error, 'Unauthorized');
    } finally {
      await s.close();
    }
  });
});
