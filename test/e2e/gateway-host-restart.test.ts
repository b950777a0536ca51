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

/** A first B with a session whose turn sends one write to A (after the checkpoint read): the write's call frame as A got it. */
async function firstWriteSent() {
  scriptPlans(
    model,
    new Map([['write it', (seen: unknown[]) => (seen.length === 0 ? [{ id: 'write-1', name: 'workspace_write', arguments: { path: 'a.txt', content: 'x', expectedSha256: null } }] : null)]]),
  );
  const first = await serve();
  const a1 = await dialChannel(first.url, channelPathFor(), { authorization: `Bearer ${token}` });
  assert.ok(a1.ok);
  if (!a1.ok) throw new Error('the first channel was refused');
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
  return { first, a1: a1.channel, sessionId, call };
}

/** Frames arrive in order: a pong to a ping sent after `ready` means nothing was sent before it. */
async function nothingSentBy(url: string) {
  const a2 = await dialChannel(url, channelPathFor(), { authorization: `Bearer ${token}` });
  assert.ok(a2.ok);
  if (!a2.ok) throw new Error('the second channel was refused');
  await new Promise<void>((resolve) => {
    a2.channel.ws.once('pong', () => resolve());
    a2.channel.ws.ping();
  });
  assert.equal(a2.channel.calls.length, 0, 'the call is not sent again');
  return a2.channel;
}

const receiptStatus = (db: Database.Database, sessionId: string) =>
  (db.prepare('SELECT status FROM receipts WHERE namespace = ? AND call_id = ?').get(`session:${sessionId}`, 'write-1') as { status: string }).status;

test('a call left unanswered by a crashed B is abandoned by the next B, not sent again; its receipt stays executing', { timeout: 60_000 }, async () => {
  const { first, a1, sessionId, call } = await firstWriteSent();
  const db = new Database(join(home, 'berth.db'), { readonly: true });
  try {
    // The call's `sent` row goes with a batch after its frame (docs/gateway.md, B's journal): this crash comes after it.
    await until(() => db.prepare('SELECT state FROM gateway_calls WHERE id = ?').get(call.id) !== undefined);
    await first.kill();
    await a1.closed;
    const second = await serve();

    const row = db.prepare('SELECT state, sends FROM gateway_calls WHERE id = ?').get(call.id) as { state: string; sends: number };
    assert.deepEqual(row, { state: 'abandoned', sends: 1 });
    assert.equal(receiptStatus(db, sessionId), 'executing', 'B never learned the outcome, so a repeat of this call id is uncertain');

    const a2 = await nothingSentBy(second.url);
    // A late answer is kept for audit and reaches nobody.
    a2.answer(call, { path: 'a.txt', sha256: 'b'.repeat(64), size: 1, created: true });
    await until(() => (db.prepare('SELECT result FROM gateway_calls WHERE id = ?').get(call.id) as { result: string | null }).result !== null);
    assert.equal((db.prepare('SELECT state FROM gateway_calls WHERE id = ?').get(call.id) as { state: string }).state, 'abandoned');
    await a2.close();
    await second.kill();
  } finally {
    db.close();
  }
});

test('a crash of B as its write leaves, its sent row perhaps not yet written, leaves the call uncertain and never sent again', { timeout: 60_000 }, async () => {
  const { first, a1, sessionId, call } = await firstWriteSent();
  // Killed the moment A has the frame: usually before the row's batch (at most 25 ms later) is written.
  await first.kill();
  await a1.closed;
  const second = await serve();
  const db = new Database(join(home, 'berth.db'), { readonly: true });
  try {
    const row = db.prepare('SELECT state FROM gateway_calls WHERE id = ?').get(call.id) as { state: string } | undefined;
    assert.ok(row === undefined || row.state === 'abandoned', `no row, or an abandoned one (got ${row?.state})`);
    assert.equal(receiptStatus(db, sessionId), 'executing', 'B never learned the outcome, so a repeat of this call id is uncertain');
    const a2 = await nothingSentBy(second.url);
    await a2.close();
    await second.kill();
  } finally {
    db.close();
  }
});
