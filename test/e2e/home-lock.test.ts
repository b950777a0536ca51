import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parseSseStream, type DaemonEvent } from '@qwen-code/sdk/daemon';
import { HomeInUseError, lockHome } from '../../src/main/home-lock.js';
import type { ScriptedModel } from '../../src/devtools/scripted-model/index.js';
import { spawnBerth, type SpawnedDaemon } from '../support/daemon.js';
import { startSpawnedStack, type SpawnedStack } from '../support/spawned-stack.js';
import { removeDir, tempDir } from '../support/tmp.js';

/**
 * Issue 11 acceptance, a second `berth serve` on a home a live daemon holds:
 * it is refused with a message naming the running daemon's URL and pid, and
 * touches nothing first — the running turn is not marked `daemon_lost`, the
 * transcript, export and session list read the same before and after, and the
 * turn goes on to complete.
 */

let spawned: SpawnedStack;
let model: ScriptedModel;

before(async () => {
  spawned = await startSpawnedStack();
  ({ model } = spawned);
});
after(() => spawned.close());

async function call(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(base + path, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  const json = (res.headers.get('content-type') ?? '').split(';')[0] === 'application/json';
  return { status: res.status, body: json && text ? JSON.parse(text) : undefined, text };
}

/** Runs `berth serve` to its end and returns its exit code and output. */
function serveToExit(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnBerth(['serve', '--port', '0', ...args]);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

test('a second berth serve on a live home is refused with the running daemon\'s URL and pid, and the running turn, its transcript, export and session list are untouched', { timeout: 180_000 }, async () => {
  model.enqueue(
    { kind: 'reply', text: 'Writing it.', toolCalls: [{ id: 'call_lock', name: 'workspace_write', arguments: { path: 'kept.txt', content: 'kept\n', expectedSha256: null } }] },
    { kind: 'reply', text: 'Written.' },
  );
  const first = await spawned.serve();
  try {
    await turnSurvivesSecondServe(first);
  } finally {
    await first.stop();
  }
});

async function turnSurvivesSecondServe(first: SpawnedDaemon): Promise<void> {
  const created = await call(first.url, 'POST', '/session', { sessionScope: 'thread' });
  assert.equal(created.status, 200, created.text);
  const { sessionId, clientId } = created.body;
  const abort = new AbortController();
  const res = await fetch(`${first.url}/session/${sessionId}/events`, { headers: { accept: 'text/event-stream', 'last-event-id': '0' }, signal: abort.signal });
  const events = parseSseStream(res.body!, abort.signal)[Symbol.asyncIterator]();
  const seen: DaemonEvent[] = [];
  const until = async (match: (e: DaemonEvent) => boolean) => {
    for (;;) {
      const r = await events.next();
      if (r.done) throw new Error(`stream ended; saw ${seen.map((e) => e.type).join(', ')}`);
      seen.push(r.value);
      if (match(r.value)) return r.value;
    }
  };
  const prompt = await call(first.url, 'POST', `/session/${sessionId}/prompt`, { prompt: [{ type: 'text', text: 'Write kept.txt' }] }, { 'x-qwen-client-id': clientId });
  assert.equal(prompt.status, 202);
  // The turn is mid-way: it waits on the person for its write.
  const asked = await until((e) => e.type === 'permission_request');

  const snapshot = async () => ({
    transcript: (await call(first.url, 'GET', `/session/${sessionId}/transcript?limit=500`)).body,
    // Every line but the export's own time stamp.
    export: (await call(first.url, 'GET', `/session/${sessionId}/export?format=jsonl`)).text.replace(/"exportTime":"[^"]*"/, ''),
    sessions: (await call(first.url, 'GET', '/sessions')).body,
    status: (await call(first.url, 'GET', `/session/${sessionId}/status`)).body,
  });
  const beforeSecond = await snapshot();

  const second = await serveToExit(['--home', spawned.home, '--workspace', spawned.workspace]);
  assert.notEqual(second.code, 0);
  assert.doesNotMatch(second.stdout, /berth listening/);
  assert.match(second.stderr, new RegExp(`pid ${first.child.pid}\\b`));
  assert.ok(second.stderr.includes(first.url), second.stderr);
  assert.match(second.stderr, /--home DIR/);

  assert.deepEqual(await snapshot(), beforeSecond);
  const listed = beforeSecond.sessions.sessions.find((s: any) => s.sessionId === sessionId);
  assert.equal(listed.state, 'live');
  assert.equal(listed.closeReason, undefined);

  // The turn goes on: approved, it writes and completes, and nothing says its recording degraded.
  const allow = (asked.data as any).options.find((o: any) => o.kind === 'allow_once').optionId;
  const vote = await call(first.url, 'POST', `/session/${sessionId}/permission/${(asked.data as any).requestId}`, { outcome: { outcome: 'selected', optionId: allow } }, { 'x-qwen-client-id': clientId });
  assert.equal(vote.status, 200, vote.text);
  const end = await until((e) => e.type === 'turn_complete' || e.type === 'turn_error');
  abort.abort();
  assert.equal(end.type, 'turn_complete');
  assert.ok(!seen.some((e) => e.type === 'session_recording_degraded'));
  assert.ok(existsSync(join(spawned.workspace, 'kept.txt')));
  const transcript = (await call(first.url, 'GET', `/session/${sessionId}/transcript?limit=500`)).body.events;
  const texts = transcript.map((e: any) => e.data.content?.text).filter(Boolean);
  assert.deepEqual(texts, ['Write kept.txt', 'Writing it.', 'Written.']);
  assert.equal(transcript.filter((e: any) => e.type === 'turn_error').length, 0);
}

test('once the daemon that held a home has stopped, the next one takes it, even after a SIGKILL left no chance to let go', { timeout: 180_000 }, async () => {
  const killed = await spawned.serve();
  await killed.kill();
  const next = await spawned.serve();
  assert.equal((await call(next.url, 'GET', '/health')).status, 200);
  assert.equal(await next.stop(), 0);
  const after = await spawned.serve();
  assert.equal((await call(after.url, 'GET', '/health')).status, 200);
  await after.stop();
});

test('the lock refuses a second holder in the same process too, and names the holder once it announced its URL', () => {
  const home = tempDir('berth-home-');
  try {
    const lock = lockHome(home);
    assert.equal(statSync(join(home, 'daemon.lock')).mode & 0o777, 0o600);
    assert.equal(statSync(join(home, 'daemon.json')).mode & 0o777, 0o600);
    assert.throws(() => lockHome(home), (err: unknown) => err instanceof HomeInUseError && /pid \d+, still starting/.test(err.message));
    lock.announce('http://127.0.0.1:1');
    assert.throws(
      () => lockHome(home),
      (err: unknown) => err instanceof HomeInUseError && err.message.includes(`(pid ${process.pid}) listening on http://127.0.0.1:1`),
    );
    lock.release();
    lockHome(home).release();
  } finally {
    removeDir(home);
  }
});
