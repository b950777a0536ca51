import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { validatorFor } from '../../src/http/contract.js';
import { assertEveryStatusProduced, op, type Method } from '../support/contract.js';
import type { JsonResponse, TestDaemon } from '../support/daemon.js';
import { runTurn, storeGeneratedSession } from '../support/history.js';
import { newSession } from '../support/session-client.js';
import { startStack, type Stack } from '../support/stack.js';
import { sqliteDb } from '../support/daemon.js';

/**
 * Contract test (style.md §4) for load, resume, transcript and export: every
 * answer validates against the schema the seed OpenAPI lists for its status
 * (export's 200 against its listed content types), every listed status is
 * produced or named below with the reason it cannot be; plus `GET /sessions`,
 * Berth's listing outside the 25 operations, behind the owner token.
 */

const COVERED: ReadonlyArray<[Method, string]> = [
  ['POST', '/session/{id}/load'],
  ['POST', '/session/{id}/resume'],
  ['GET', '/session/{id}/transcript'],
  ['GET', '/session/{id}/export'],
];

const UNREACHABLE: Record<string, string> = {
  'POST /session/{id}/load 403': 'every registered workspace is trusted; there is no untrusted one to restore into',
  'POST /session/{id}/resume 403': 'every registered workspace is trusted; there is no untrusted one to restore into',
  'POST /session/{id}/load 504': 'a restore reads SQLite and builds the in-process agent; no child process or remote step can time out',
  'POST /session/{id}/resume 504': 'a restore reads SQLite and builds the in-process agent; no child process or remote step can time out',
  'GET /session/{id}/export 409': 'the store has no archived or transitioning session states; an export reads committed rows',
};

const seen = new Set<string>();

function conforms(method: Method, template: string, res: JsonResponse): JsonResponse {
  const operation = op(method, template);
  const listed = operation.responses[String(res.status)];
  assert.ok(listed, `${method} ${template} answered ${res.status}, which ${operation.operationId} does not list: ${JSON.stringify(res.body)}`);
  seen.add(`${method} ${template} ${res.status}`);
  const type = (res.headers.get('content-type') ?? '').split(';')[0]!;
  const content = listed.content?.[type];
  assert.ok(content, `${method} ${template} ${res.status} answered ${type}, which is not listed`);
  const ref = content.schema.$ref;
  if (ref) {
    const name = ref.replace('#/components/schemas/', '');
    const validate = validatorFor(name);
    assert.ok(validate(res.body), `${method} ${template} ${res.status} is not a ${name}: ${JSON.stringify(validate.errors)}`);
  }
  return res;
}

describe('contract: history routes against the seed OpenAPI', () => {
  let s: Stack;
  let d: TestDaemon;
  const call = async (method: Method, template: string, id: string, query = '', body?: unknown, on: TestDaemon = d) =>
    conforms(method, template, await on.json(method, template.replace('{id}', encodeURIComponent(id)) + query, body));

  before(async () => {
    s = await startStack();
    d = s.daemon;
  });
  after(async () => {
    await s.close();
  });

  it('answers load and resume in the RestoredSession and Error shapes', async () => {
    const { sessionId, clientId } = await newSession(d);
    await runTurn(d, sessionId, 'hello', clientId);
    await d.json('DELETE', `/session/${sessionId}`);
    for (const action of ['load', 'resume']) {
      const template = `/session/{id}/${action}`;
      assert.equal((await call('POST', template, sessionId, '', {})).status, 200);
      assert.equal((await call('POST', template, sessionId, '', {})).status, 200, 'attach');
      assert.equal((await call('POST', template, randomUUID(), '', {})).status, 404);
      assert.equal((await call('POST', template, sessionId, '', { approvalMode: 'reckless' })).status, 400);
      await d.json('DELETE', `/session/${sessionId}`);
    }
    const limited = await startStack({ config: { maxSessions: 1 } });
    try {
      const stored = await storeGeneratedSession(limited.daemon, 1);
      await newSession(limited.daemon);
      for (const action of ['load', 'resume']) {
        const full = await call('POST', `/session/{id}/${action}`, stored, '', {}, limited.daemon);
        assert.equal(full.status, 503);
        assert.equal(full.body.code, 'session_limit_exceeded');
      }
    } finally {
      await limited.close();
    }
  });

  it('answers 409 for a session whose workspace is gone, and racing loads and resumes with 200 or 409 restore_in_progress', async () => {
    const orphan = await storeGeneratedSession(d, 1, { workspaceId: 'no-such-workspace' });
    for (const action of ['load', 'resume']) {
      const res = await call('POST', `/session/{id}/${action}`, orphan, '', {});
      assert.equal(res.status, 409);
      assert.equal(res.body.code, 'session_conflict');
    }
    // Many sessions restored at once: each pair races load against resume on one id. Whichever
    // call is second while the first is still building the session gets the 409.
    const ids = await Promise.all(Array.from({ length: 12 }, () => storeGeneratedSession(d, 40)));
    const answers = await Promise.all(
      ids.flatMap((id) => [d.json('POST', `/session/${id}/load`, {}), d.json('POST', `/session/${id}/resume`, {})]),
    );
    const conflicts = answers.filter((r) => r.status === 409);
    for (const r of answers) assert.ok([200, 409].includes(r.status), JSON.stringify(r.body));
    for (const [i, r] of answers.entries()) conforms('POST', i % 2 === 0 ? '/session/{id}/load' : '/session/{id}/resume', r);
    for (const c of conflicts) assert.equal(c.body.code, 'restore_in_progress');
    if (conflicts.length === 0) {
      // Every pair happened to run one after the other: the second call attached, which is also correct.
      assert.ok(answers.every((r) => r.status === 200));
    }
  });

  it('answers the transcript in the TranscriptPage and Error shapes, including 409 and 413', async () => {
    const id = await storeGeneratedSession(d, 3);
    const first = await call('GET', '/session/{id}/transcript', id, '?limit=5');
    assert.equal(first.status, 200);
    assert.equal((await call('GET', '/session/{id}/transcript', id, '?limit=0')).status, 400);
    assert.equal((await call('GET', '/session/{id}/transcript', randomUUID())).status, 404);
    sqliteDb(d.daemon).prepare('DELETE FROM transcript WHERE session_id = ? AND seq = 18').run(id);
    assert.equal((await call('GET', '/session/{id}/transcript', id, `?cursor=${encodeURIComponent(first.body.nextCursor)}`)).status, 409);
    const big = await storeGeneratedSession(d, 0);
    const insert = sqliteDb(d.daemon).prepare(
      "INSERT INTO transcript (session_id, seq, record_id, kind, prompt_id, at, data) VALUES (?, ?, ?, 'agent_message', NULL, 0, ?)",
    );
    for (let seq = 1; seq <= 3; seq++) insert.run(big, seq, randomUUID(), JSON.stringify({ text: 'y'.repeat(3 * 1024 * 1024) }));
    assert.equal((await call('GET', '/session/{id}/transcript', big, '?limit=3')).status, 413);
  });

  it('answers export with a listed content type, and refusals as Error', async () => {
    const id = await storeGeneratedSession(d, 1);
    for (const format of ['html', 'md', 'json', 'jsonl']) {
      const res = await d.fetch(`/session/${id}/export?format=${format}`);
      const text = await res.text();
      conforms('GET', '/session/{id}/export', { status: res.status, headers: res.headers, body: format === 'json' ? JSON.parse(text) : text });
    }
    assert.equal((await call('GET', '/session/{id}/export', id, '?format=pdf')).status, 400);
    assert.equal((await call('GET', '/session/{id}/export', randomUUID())).status, 404);
  });

  it('produced every status these operations list, except the ones named as unreachable', () => {
    assertEveryStatusProduced(COVERED, UNREACHABLE, seen);
  });
});

describe('GET /sessions', () => {
  it('lists every stored session, live or persisted, and needs the owner token when one is set', async () => {
    const s = await startStack({ config: { token: 'history-owner-token' } });
    try {
      const d = s.daemon;
      const live = await newSession(d);
      const closed = await storeGeneratedSession(d, 1);
      const res = await d.json('GET', '/sessions');
      assert.equal(res.status, 200);
      const byId = Object.fromEntries(res.body.sessions.map((e: any) => [e.sessionId, e]));
      assert.equal(byId[live.sessionId].state, 'live');
      assert.equal(byId[live.sessionId].workspaceCwd, d.workspace);
      assert.equal(byId[live.sessionId].closedAt, undefined);
      assert.equal(byId[closed].state, 'persisted');
      assert.equal(byId[closed].closeReason, 'client_close');
      assert.ok(Date.parse(byId[closed].closedAt) > 0);
      const anonymous = await fetch(`${d.url}/sessions`);
      assert.equal(anonymous.status, 401);
      const channel = (await d.daemon.core.tokens.createChannelToken(d.daemon.core.workspaces.primary().id)).token;
      const scoped = await fetch(`${d.url}/sessions`, { headers: { authorization: `Bearer ${channel}` } });
      assert.equal(scoped.status, 403);
    } finally {
      await s.close();
    }
  });
});
