import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startStack, type Stack } from '../support/stack.js';

/** spec §5.1 `sessionScope: single` meets §5.3 load: the restored session is the workspace's shared one again. */
let stack: Stack;
before(async () => {
  stack = await startStack();
});
after(() => stack.close());

test('a loaded single-scope session is the one a later POST /session {} attaches to', async () => {
  const d = stack.daemon;
  const created = await d.json('POST', '/session', {});
  assert.equal(created.status, 200);
  assert.equal(created.body.attached, false);
  const id = created.body.sessionId;
  const closed = await d.json('DELETE', `/session/${id}`, undefined, { 'x-qwen-client-id': created.body.clientId });
  assert.equal(closed.status, 204);

  const loaded = await d.json('POST', `/session/${id}/load`, {});
  assert.equal(loaded.status, 200, JSON.stringify(loaded.body));
  const attached = await d.json('POST', '/session', {});
  assert.equal(attached.status, 200);
  assert.equal(attached.body.sessionId, id);
  assert.equal(attached.body.attached, true);

  const thread = await d.json('POST', '/session', { sessionScope: 'thread' });
  assert.notEqual(thread.body.sessionId, id);
});
