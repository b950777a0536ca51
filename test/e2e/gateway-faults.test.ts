import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
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
    token = channelToken(host.b);
    scriptPlans(host.stack.model, plans);
  });
  afterEach(async () => {
    await Promise.all(owners.splice(0).map((o) => o.kill('SIGKILL')));
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  after(() => host.close());

  test('A killed after a stop took effect and before its result: after A restarts the call is answered uncertain_effect, and the effect happened once', async () => {
    const dirs = ownerDirs();
    cleanups.push(() => dirs.remove());
    cleanups.push(() => killGroupOf(join(dirs.project, 'watcher.pid')));
    // The command records its process group, answers SIGTERM by recording the stop (the effect),
    // then lingers: workspace_stop waits for it, so A holds the receipt `executing` past the effect.
    const watcher = `echo $$ > watcher.pid; trap 'echo stopped >> effect.log; sleep 30; exit 0' TERM; echo ready; while :; do sleep 1; done`;
    plans.set('stop the watcher', (seen) => {
      if (seen.length === 0) return [{ id: 'exec-watcher', name: 'workspace_exec', arguments: { command: watcher } }];
      const commandId = seen[0]!.json.commandId;
      const last = seen[seen.length - 1]!;
      if (last.id.startsWith('stop')) return null;
      if (seen.length > 1 && String(last.json.output ?? '').includes('ready')) {
        return [{ id: 'stop-watcher', name: 'workspace_stop', arguments: { commandId } }];
      }
      return [{ id: `poll-${seen.length}`, name: 'workspace_poll', arguments: { commandId } }];
    });
    const first = owner(dirs, host.b.url);
    await first.waitForLines(/channel ready/);
    const sessionId = await remoteSession(host.b);
    const turn = runTurn(host.b, sessionId, 'stop the watcher');

    await until(() => existsSync(join(dirs.project, 'effect.log')));
    first.child.kill('SIGKILL');
    await first.exited;
    assert.doesNotMatch(first.stderr(), /workspace_stop · /, 'the first A never answered the stop');

    const second = owner(dirs, host.b.url);
    const settled = await turn;
    const stop = settled.calls.find((c) => c.tool === 'workspace_stop')!;
    assert.equal(stop.status, 'failed');
    assert.equal(stop.code, 'uncertain_effect');
    assert.match(second.stderr(), new RegExp(`workspace_stop · session ${sessionId.slice(0, 8)} · uncertain_effect`));
    assert.equal(readFileSync(join(dirs.project, 'effect.log'), 'utf8'), 'stopped\n', 'the effect happened exactly once');
    const row = host.b.daemon.store.db
      .prepare(`SELECT state, sends FROM gateway_calls WHERE session_id = ? AND tool = 'workspace_stop'`)
      .get(sessionId) as { state: string; sends: number };
    assert.deepEqual(row, { state: 'answered', sends: 2 }, 'B sent the same call again after A came back');
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
    assert.equal(a.stderr().match(new RegExp(`workspace_exec · session ${short} · ok`, 'g'))?.length, 1);
    assert.equal(a.stderr().match(new RegExp(`workspace_exec · session ${short} · replayed`, 'g'))?.length, 1);
    assert.equal(readFileSync(join(dirs.project, 'effects.log'), 'utf8'), 'once\n');
    const row = host.b.daemon.store.db
      .prepare(`SELECT state, sends FROM gateway_calls WHERE session_id = ? AND tool = 'workspace_exec'`)
      .get(sessionId) as { state: string; sends: number };
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
