import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  channelToken,
  ownerDirs,
  remoteSession,
  runTurn,
  scriptPlans,
  spawnOwner,
  startGatewayHost,
  type GatewayHost,
  type OwnerProcess,
  type TempOwnerDirs,
  type TurnPlans,
} from '../support/gateway.js';
import { ChannelProxy, seededRandom } from '../support/ws-proxy.js';
import { sqliteDb } from '../support/daemon.js';

/**
 * Issue 5 acceptance: 1,000 effectful calls under random socket cuts and A
 * restarts. Four sessions on B each append 250 unique lines to one file on
 * A's project (`workspace_exec`, a non-idempotent effect), through a proxy
 * that randomly loses call and result frames and cuts the connection, while
 * A is SIGKILLed and started again every couple of hundred effects. Every
 * line must appear at most once; every call B saw succeed exactly once; the
 * only other answer allowed is `uncertain_effect`.
 */

const SESSIONS = 4;
const CALLS_PER_SESSION = 250;
const CALLS_PER_REPLY = 25;
/** The fault seed; a failing run is replayed by setting BERTH_CHAOS_SEED. */
const SEED = Number(process.env.BERTH_CHAOS_SEED ?? 20261130);

let host: GatewayHost;
let dirs: TempOwnerDirs;
let proxy: ChannelProxy;
const owners: OwnerProcess[] = [];

before(async () => {
  host = await startGatewayHost({ channelWaitMs: 120_000 });
  dirs = ownerDirs();
  proxy = await ChannelProxy.start(host.b.url);
});
after(async () => {
  await Promise.all(owners.map((o) => o.kill('SIGKILL')));
  await proxy?.close();
  await host?.close();
  dirs?.remove();
});

test('1,000 effectful calls under random socket cuts and A restarts: each effect happens once or is reported uncertain, never twice', { timeout: 600_000 }, async (t) => {
  const random = seededRandom(SEED);
  proxy.judge = (frame) => {
    const r = random();
    if (frame.direction === 'toServer' && frame.text?.includes('"type":"result"')) {
      if (r < 0.015) return 'drop-and-cut';
      if (r < 0.03) return 'forward-then-cut';
    }
    if (frame.direction === 'toClient' && frame.text?.includes('"type":"call"') && r < 0.01) return 'drop-and-cut';
    return 'forward';
  };

  const plans: TurnPlans = new Map();
  for (let s = 1; s <= SESSIONS; s++) {
    plans.set(`append lines ${s}`, (seen) => {
      if (seen.length >= CALLS_PER_SESSION) return null;
      return Array.from({ length: CALLS_PER_REPLY }, (_, i) => {
        const uid = `s${s}-${seen.length + i + 1}`;
        // `waitMs`: the call answers once the line is written. Without it the answer says only that the command
        // started, and A killed a moment later takes its command with it: a confirmed call with no line.
        return { id: `x-${uid}`, name: 'workspace_exec', arguments: { command: `echo ${uid} >> effects.log`, waitMs: 30_000 } };
      });
    });
  }
  scriptPlans(host.stack.model, plans);
  const token = await channelToken(host.b);
  const startOwner = () => {
    const o = spawnOwner({ url: proxy.url, token, project: dirs.project, home: dirs.home, args: ['--approve', 'critical'] });
    owners.push(o);
    return o;
  };
  let current = startOwner();
  await current.waitForLines(/channel ready/);

  const sessions = await Promise.all(Array.from({ length: SESSIONS }, () => remoteSession(host.b)));
  let finished = false;
  const turns = Promise.all(sessions.map((id, i) => runTurn(host.b, id, `append lines ${i + 1}`))).finally(() => (finished = true));

  // A dies by SIGKILL every 120-260 effects, at whatever point its calls are in, and comes back on the same home.
  let restarts = 0;
  const effectsFile = join(dirs.project, 'effects.log');
  const lineCount = () => (existsSync(effectsFile) ? readFileSync(effectsFile, 'utf8').split('\n').length - 1 : 0);
  const restarter = (async () => {
    let next = 120 + Math.floor(random() * 140);
    while (!finished) {
      await new Promise((r) => setTimeout(r, 20));
      if (lineCount() < next || finished) continue;
      current.child.kill('SIGKILL');
      await current.exited;
      current = startOwner();
      restarts += 1;
      next = lineCount() + 120 + Math.floor(random() * 140);
    }
  })();
  const settled = await turns;
  await restarter;

  const outcome = new Map<string, string>();
  for (const turn of settled) {
    assert.equal(turn.terminal.type, 'turn_complete');
    for (const c of turn.calls) outcome.set(c.toolCallId.replace(/^x-/, ''), c.status === 'completed' ? 'ok' : c.code!);
  }
  assert.equal(outcome.size, SESSIONS * CALLS_PER_SESSION, 'every call was answered');
  const others = [...outcome].filter(([, o]) => o !== 'ok' && o !== 'uncertain_effect');
  assert.deepEqual(others, [], 'every call either succeeded or was reported uncertain');

  const ok = [...outcome].filter(([, o]) => o === 'ok').map(([uid]) => uid);
  const counts = () => {
    const c = new Map<string, number>();
    for (const line of readFileSync(effectsFile, 'utf8').split('\n').filter(Boolean)) c.set(line, (c.get(line) ?? 0) + 1);
    return c;
  };
  // A confirmed call answered after its command finished (waitMs above), so its line is there now.
  const lines = counts();
  const twice = [...lines].filter(([, n]) => n > 1);
  assert.deepEqual(twice, [], 'no effect happened twice');
  for (const uid of ok) assert.equal(lines.get(uid), 1, uid);
  for (const uid of lines.keys()) assert.ok(outcome.has(uid), `${uid} was a call B made`);

  const resent = (sqliteDb(host.b.daemon).prepare('SELECT count(*) AS n FROM gateway_calls WHERE sends > 1').get() as { n: number }).n;
  const replayed = owners.reduce((n, o) => n + (o.stderr().match(/ · replayed/g)?.length ?? 0), 0);
  const uncertain = [...outcome.values()].filter((o) => o === 'uncertain_effect').length;
  const uncertainLanded = [...outcome].filter(([uid, o]) => o === 'uncertain_effect' && lines.has(uid)).length;
  t.diagnostic(
    `seed ${SEED}: ${proxy.cuts} cuts, ${restarts} restarts of A, ${resent} calls sent again, ${replayed} stored results replayed, ` +
      `${ok.length} ok, ${uncertain} uncertain (${uncertainLanded} of them took effect)`,
  );
  assert.ok(proxy.cuts >= 5, 'the run cut the socket');
  assert.ok(restarts >= 3, 'the run restarted A');
  assert.ok(resent > 0, 'B sent unanswered calls again');
  assert.ok(replayed > 0, 'A answered re-sent calls from its receipts');
});
