import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { STORE_FILE } from '../../src/store/db.js';
import { after, afterEach, before, describe, test } from 'node:test';
import {
  channelToken,
  ownerDirs,
  remoteSession,
  runTurn,
  scriptPlans,
  spawnOwner,
  startGatewayHost,
  until,
  type GatewayHost,
  type OwnerProcess,
  type TempOwnerDirs,
  type TurnPlans,
} from '../support/gateway.js';
import { ChannelProxy } from '../support/ws-proxy.js';
import { sqliteDb } from '../support/daemon.js';

/**
 * Issue 5 acceptance, fault tests with real processes: A (`berth connect`) is
 * a child process killed with SIGKILL at a chosen point, and a TCP proxy
 * between A and B loses a chosen frame and cuts the connection. Effects are
 * counted on A's disk.
 */
describe('effects happen once or are reported uncertain when A dies or the socket is cut', { timeout: 180_000 }, () => {
  let host: GatewayHost;
  let token: string;
  const owners: OwnerProcess[] = [];
  const cleanups: Array<() => void | Promise<void>> = [];
  const plans: TurnPlans = new Map();
  const owner = (dirs: TempOwnerDirs, url: string) => {
    const o = spawnOwner({ url, token, project: dirs.project, home: dirs.home, args: ['--approve', 'critical'] });
    owners.push(o);
    return o;
  };

  before(async () => {
    host = await startGatewayHost({ channelWaitMs: 60_000 });
    token = await channelToken(host.b);
    scriptPlans(host.stack.model, plans);
  });
  afterEach(async () => {
    await Promise.all(owners.splice(0).map((o) => o.kill('SIGKILL')));
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  after(() => host.close());

  test('A killed while a critical call runs, after its receipt and before its result: after A restarts the call is answered uncertain_effect and not run again', async () => {
    const dirs = ownerDirs();
    cleanups.push(() => dirs.remove());
    cleanups.push(() => killGroupOf(join(dirs.project, 'watcher.pid')));
    // The command never reads its stdin, so once the pipe is full a workspace_input call waits
    // for room that never comes: A holds its receipt `executing` with part of the text delivered.
    const watcher = `echo $$ > watcher.pid; echo ready; while :; do sleep 1; done`;
    const chunk = 'x'.repeat(16_384);
    plans.set('fill the watcher', (seen) => {
      if (seen.length === 0) return [{ id: 'exec-watcher', name: 'workspace_exec', arguments: { command: watcher } }];
      const commandId = seen[0]!.json.commandId;
      const last = seen[seen.length - 1]!;
      if (last.id.startsWith('input')) return null;
      if (seen.length > 1 && String(last.json.output ?? '').includes('ready')) {
        return Array.from({ length: 64 }, (_, i) => ({ id: `input-${i}`, name: 'workspace_input', arguments: { commandId, text: chunk } }));
      }
      return [{ id: `poll-${seen.length}`, name: 'workspace_poll', arguments: { commandId } }];
    });
    const first = owner(dirs, host.b.url);
    await first.waitForLines(/channel ready/);
    const sessionId = await remoteSession(host.b);
    const turn = runTurn(host.b, sessionId, 'fill the watcher');

    const receipts = new Database(join(dirs.home, STORE_FILE), { readonly: true, fileMustExist: true });
    // Every input is `executing` for a moment; the stuck one is the one that stays so for a second.
    const executing = receipts.prepare(`SELECT call_id AS callId FROM receipts WHERE tool_name = 'workspace_input' AND status = 'executing'`);
    let seen: { callId: string; since: number } | undefined;
    const stuck = await until(() => {
      const row = executing.get() as { callId: string } | undefined;
      if (!row || row.callId !== seen?.callId) seen = row && { callId: row.callId, since: Date.now() };
      return seen && Date.now() - seen.since >= 1_000 ? seen : undefined;
    }, 50);
    receipts.close();
    first.child.kill('SIGKILL');
    await first.exited;

    const second = owner(dirs, host.b.url);
    const settled = await turn;
    const inputs = settled.calls.filter((c) => c.tool === 'workspace_input');
    // Calls settle in the order their answers arrive, not the order the model listed them, so
    // the stuck call is found by its code rather than by its place.
    const failed = inputs.filter((c) => c.status === 'failed');
    assert.ok(failed.length > 0 && failed.length < inputs.length, 'the first inputs filled the pipe, the rest failed');
    assert.equal(failed.filter((c) => c.code === 'uncertain_effect').length, 1, 'exactly the stuck call is reported uncertain');
    // The second A never started the watcher, so the other unanswered inputs name a command it does not know.
    assert.deepEqual(new Set(failed.filter((c) => c.code !== 'uncertain_effect').map((c) => c.code)), new Set(['unknown_command']));
    const short = sessionId.slice(0, 8);
    // A prints a call's status line after its result has left, so the turn can end before the line arrives.
    await second.waitForLines(new RegExp(`workspace_input · session ${short} · uncertain_effect`));
    assert.equal(second.stderr().match(new RegExp(`workspace_input · session ${short} · uncertain_effect`, 'g'))?.length, 1);
    assert.doesNotMatch(second.stderr(), new RegExp(`workspace_input · session ${short} · ok`), 'the second A ran no input again');
    // B writes the row that closes an answered call in a batch shortly after the answer: wait for it to leave `sent`.
    const db = sqliteDb(host.b.daemon);
    const row = await until(() => {
      const r = db.prepare(`SELECT state, sends, result FROM gateway_calls WHERE id = ?`).get(stuck.callId) as { state: string; sends: number; result: string };
      return r.state !== 'sent' && r;
    });
    assert.deepEqual({ state: row.state, sends: row.sends }, { state: 'answered', sends: 2 }, 'B sent the same call again after A came back');
    assert.match(row.result, /uncertain_effect/, 'the call A held executing is the one answered uncertain');
  });

  test('the socket cut after A’s result and before B records it: B sends the call again and A replays the stored result without a second effect', async () => {
    const dirs = ownerDirs();
    cleanups.push(() => dirs.remove());
    const proxy = await ChannelProxy.start(host.b.url);
    cleanups.push(() => proxy.close());
    let dropped = 0;
    proxy.judge = (frame) => {
      if (frame.direction === 'toServer' && dropped === 0 && frame.text?.includes('"type":"result"')) {
        const result = JSON.parse(JSON.parse(frame.text).result);
        if (typeof result.commandId === 'string') {
          dropped += 1;
          return 'drop-and-cut';
        }
      }
      return 'forward';
    };
    plans.set('append once', (seen) => {
      if (seen.length === 0) return [{ id: 'exec-once', name: 'workspace_exec', arguments: { command: 'echo once >> effects.log' } }];
      const last = seen[seen.length - 1]!.json;
      if (last.running === false) return null;
      return [{ id: `poll-once-${seen.length}`, name: 'workspace_poll', arguments: { commandId: seen[0]!.json.commandId } }];
    });
    const a = owner(dirs, proxy.url);
    await a.waitForLines(/channel ready/);
    const sessionId = await remoteSession(host.b);
    const settled = await runTurn(host.b, sessionId, 'append once');

    assert.equal(dropped, 1, 'the proxy lost exactly one result');
    assert.equal(settled.terminal.type, 'turn_complete');
    const exec = settled.calls.find((c) => c.tool === 'workspace_exec')!;
    assert.equal(exec.status, 'completed');
    const polls = settled.calls.filter((c) => c.tool === 'workspace_poll');
    assert.equal(polls[polls.length - 1]!.rawOutput.exitCode, 0, 'the replayed command id names the command that ran');
    const short = sessionId.slice(0, 8);
    // A prints a call's status line after its result has left, so the turn can end before the line arrives.
    await a.waitForLines(new RegExp(`workspace_exec · session ${short} · (ok|replayed)`), 2);
    assert.equal(a.stderr().match(new RegExp(`workspace_exec · session ${short} · ok`, 'g'))?.length, 1);
    assert.equal(a.stderr().match(new RegExp(`workspace_exec · session ${short} · replayed`, 'g'))?.length, 1);
    assert.equal(readFileSync(join(dirs.project, 'effects.log'), 'utf8'), 'once\n');
    // B writes the row that closes an answered call in a batch shortly after the answer: wait for it to leave `sent`.
    const db = sqliteDb(host.b.daemon);
    const row = await until(() => {
      const r = db.prepare(`SELECT state, sends FROM gateway_calls WHERE session_id = ? AND tool = 'workspace_exec'`).get(sessionId) as { state: string; sends: number };
      return r.state !== 'sent' && r;
    });
    assert.deepEqual(row, { state: 'answered', sends: 2 });
  });
});

/** Kills the process group whose leader's pid the command wrote (the watcher outlives a SIGKILLed A). */
function killGroupOf(pidFile: string): void {
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    /* already gone */
  }
}
