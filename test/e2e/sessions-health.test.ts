import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validatorFor } from '../../src/http/contract.js';
import { startStack } from '../support/stack.js';
import { eventually, EventReader, newSession, select, submit } from '../support/session-client.js';

/** `GET /health?deep=1` counters (spec §12) follow the sessions, prompts, permissions and streams they count. */

const healthShape = validatorFor('HealthResponse');

describe('deep health counters', () => {
  it('counts live sessions, pending permissions, running prompts and connected SSE clients as they come and go', async () => {
    const s = await startStack();
    try {
      const d = s.daemon;
      const deep = async () => {
        const res = await d.json('GET', '/health?deep=1');
        assert.equal(res.status, 200);
        assert.ok(healthShape(res.body), JSON.stringify(healthShape.errors));
        return res.body;
      };
      assert.deepEqual((await d.json('GET', '/health')).body, { status: 'ok' }, 'the cheap probe has no counters');
      const idle = await deep();
      assert.equal(idle.status, 'ok');
      assert.equal(idle.workspaceCount, 1);
      assert.equal(idle.sessions, 0);
      assert.equal(idle.pendingPermissions, 0);
      assert.equal(idle.activePrompts, 0);
      assert.equal(idle.connectedClients, 0);
      assert.equal(idle.activeWork, false);

      const a = await newSession(d);
      const b = await newSession(d);
      const streamsA = [await EventReader.open(d, a.sessionId), await EventReader.open(d, a.sessionId)];
      const streamB = await EventReader.open(d, b.sessionId);
      let h = await deep();
      assert.equal(h.sessions, 2);
      assert.equal(h.connectedClients, 3);

      s.model.enqueue({ kind: 'reply', toolCalls: [{ name: 'workspace_write', arguments: { path: 'h.txt', content: 'h', expectedSha256: null } }] });
      const pa = (await submit(d, a.sessionId, 'needs a vote')).body.promptId;
      const request = await streamsA[0]!.type('permission_request');
      h = await deep();
      assert.equal(h.pendingPermissions, 1);
      assert.equal(h.activePrompts, 1);
      assert.equal(h.activeWork, true);
      assert.equal(h.idleSinceMs, 0);

      s.model.enqueue({ kind: 'hang' });
      const pb = (await submit(d, b.sessionId, 'hangs')).body.promptId;
      await submit(d, b.sessionId, 'queued behind it');
      await s.model.waitForRequests(2, '/chat/completions');
      h = await deep();
      assert.equal(h.activePrompts, 2, 'a queued prompt is not active');
      assert.equal(h.pendingPermissions, 1);

      await d.json('POST', `/session/${a.sessionId}/permission/${request.data.requestId}`, select('proceed_once'));
      await streamsA[0]!.terminal(pa);
      h = await deep();
      assert.equal(h.pendingPermissions, 0);
      assert.equal(h.activePrompts, 1);

      await d.json('POST', `/session/${b.sessionId}/cancel`, {});
      await streamB.terminal(pb);
      // The queued prompt runs next (the default reply) and ends; then nothing is active.
      h = await eventually(deep, (x) => x.activePrompts === 0);
      assert.equal(h.activeWork, false);
      assert.equal(typeof h.lastActivityAt, 'string');
      assert.ok(h.idleSinceMs >= 0);

      for (const st of streamsA) st.close();
      h = await eventually(deep, (x) => x.connectedClients === 1);
      assert.equal((await d.json('DELETE', `/session/${b.sessionId}`)).status, 204);
      await streamB.rest();
      h = await eventually(deep, (x) => x.connectedClients === 0);
      assert.equal(h.sessions, 1);
    } finally {
      await s.close();
    }
  });
});
