import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import type { ScriptedModel } from '../../src/devtools/scripted-model/index.js';
import { openStore } from '../../src/store/db.js';
import { TokenService } from '../../src/tokens/tokens.js';
import { INTENTION, WORKSPACE_ID, channelPathFor, dialChannel, scriptPlans, until } from '../support/gateway.js';
import { startSpawnedStack, type SpawnedStack } from '../support/spawned-stack.js';
import { sqliteRepositories } from '../../src/main/repositories.js';

/**
 * Issue 5, B's side of a restart: `berth serve` (a real process) is SIGKILLed
 * with a write call sent to A and unanswered. The next B abandons that call
 * instead of sending it again (the turn that made it died with the process, and
 * an effect nobody waits for must not happen now), and B's own receipt of the
 * call stays `executing`, so the same call id is answered `uncertain_effect`.
 */

let spawned: SpawnedStack;
let model: ScriptedModel;
let home: string;
let token: string;

before(async () => {
  spawned = await startSpawnedStack();
  ({ model, home } = spawned);
  const store = openStore(home);
  token = (await new TokenService(sqliteRepositories(store.db).tokens, null).createChannelToken(WORKSPACE_ID)).token;
  store.close();
});
after(() => spawned.close());

const serve = () => spawned.serve('--remote-workspace', `${WORKSPACE_ID}=${INTENTION}`);

test('a call left unanswered by a crashed B is abandoned by the next B, not sent again; its receipt stays executing', { timeout: 60_000 }, async () => {
  scriptPlans(
    model,
    new Map([['write it', (seen: unknown[]) => (seen.length === 0 ? [{ id: 'write-1', name: 'workspace_write', arguments: { path: 'a.txt', content: 'x', expectedSha256: null } }] : null)]]),
  );
  const first = await serve();
  const a1 = await dialChannel(first.url, channelPathFor(), { authorization: `Bearer ${token}` });
  assert.ok(a1.ok);
  if (!a1.ok) return;
  const created = await fetch(`${first.url}/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ cwd: WORKSPACE_ID, sessionScope: 'thread', approvalMode: 'yolo' }),
  });
  const { sessionId } = (await created.json()) as { sessionId: string };
  const accepted = await fetch(`${first.url}/session/${sessionId}/prompt`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: [{ type: 'text', text: 'write it' }] }),
  });
  assert.equal(accepted.status, 202);
  // Before a write B reads the file for its checkpoint (docs/client-api.md §5.13): a.txt does not exist yet.
  const checkpointRead = await a1.channel.call(1);
  assert.equal(checkpointRead.tool, 'workspace_read');
  a1.channel.answer(checkpointRead, { code: 'path_not_found', message: 'a.txt does not exist' });
  const call = await a1.channel.call(2);
  assert.equal(call.tool, 'workspace_write');

  await first.kill();
  await a1.channel.closed;
  const second = await serve();

  const db = new Database(join(home, 'berth.db'), { readonly: true });
  try {
    const row = db.prepare('SELECT state, sends FROM gateway_calls WHERE id = ?').get(call.id) as { state: string; sends: number };
    assert.deepEqual(row, { state: 'abandoned', sends: 1 });
    const receipt = db.prepare('SELECT status FROM receipts WHERE namespace = ? AND call_id = ?').get(`session:${sessionId}`, 'write-1') as {
      status: string;
    };
    assert.equal(receipt.status, 'executing', 'B never learned the outcome, so a repeat of this call id is uncertain');

    const a2 = await dialChannel(second.url, channelPathFor(), { authorization: `Bearer ${token}` });
    assert.ok(a2.ok);
    if (!a2.ok) return;
    // Frames arrive in order: a pong to a ping sent after `ready` means nothing was sent before it.
    await new Promise<void>((resolve) => {
      a2.channel.ws.once('pong', () => resolve());
      a2.channel.ws.ping();
    });
    assert.equal(a2.channel.calls.length, 0, 'the abandoned call is not sent again');

    // A late answer is kept for audit and reaches nobody.
    a2.channel.answer(call, { path: 'a.txt', sha256: 'b'.repeat(64), size: 1, created: true });
    await until(() => (db.prepare('SELECT result FROM gateway_calls WHERE id = ?').get(call.id) as { result: string | null }).result !== null);
    assert.equal((db.prepare('SELECT state FROM gateway_calls WHERE id = ?').get(call.id) as { state: string }).state, 'abandoned');
    await a2.channel.close();
  } finally {
    db.close();
  }
});
