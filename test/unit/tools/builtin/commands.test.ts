import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { MAX_POLL_OUTPUT_BYTES } from '../../../../src/tools/limits.js';
import { CommandManager } from '../../../../src/tools/builtin/index.js';
import { defaultCommandEnv } from '../../../../src/tools/builtin/commands/spawn-group.js';
import { eventually, refusedWith, SESSION, toolFixture, type ToolFixture } from './fixture.js';

const OTHER_SESSION = 'a3c9e1d0-5b2f-4e8a-9d7c-1f0e2b3a4c5d';
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Alive and not a zombie waiting for a parent to reap it. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

async function finished(f: ToolFixture, commandId: string, sessionId = SESSION): Promise<any> {
  let last: any;
  await eventually(async () => {
    last = await f.call('workspace_poll', { commandId }, { sessionId });
    return !last.running;
  }, `command ${commandId} to finish`);
  return last;
}

async function outputOf(f: ToolFixture, commandId: string, pattern: RegExp): Promise<string> {
  let out = '';
  await eventually(async () => {
    out = (await f.call('workspace_poll', { commandId })).output;
    return pattern.test(out);
  }, `output matching ${pattern}`);
  return out;
}

/** `sh:<shell pid> gc:<grandchild pid>` printed by the command, read back from its output. */
async function pidsOf(f: ToolFixture, commandId: string): Promise<{ shell: number; grandchild: number }> {
  const out = await outputOf(f, commandId, /sh:\d+ gc:\d+/);
  const m = /sh:(\d+) gc:(\d+)/.exec(out)!;
  return { shell: Number(m[1]), grandchild: Number(m[2]) };
}

const TREE = 'sleep 300 & echo "sh:$$ gc:$!"; sleep 301';

describe('workspace_exec and workspace_poll', () => {
  let f: ToolFixture;
  before(() => {
    f = toolFixture({ 'sub/marker.txt': 'here', 'file.txt': 'x' });
  });
  after(() => f.close());

  it('starts a command at once with a UUID v4 and reports its output and exit code when it ends', async () => {
    const started = await f.call('workspace_exec', { command: 'echo out; echo err >&2; exit 3' });
    assert.match(started.commandId, UUID_V4);
    assert.equal(started.running, true);
    assert.equal(started.timeoutMs, 120_000);
    const r = await finished(f, started.commandId);
    assert.equal(r.exitCode, 3);
    assert.equal(r.signal, null);
    assert.equal(r.timedOut, false);
    // stdout and stderr share one stream in arrival order.
    assert.equal(r.output, 'out\nerr\n');
    assert.equal(r.nextOffset, 8);
    assert.equal(r.hasMore, false);
    assert.equal(r.outputDropped, false);
  });

  it('runs in a cwd confined inside the workspace', async () => {
    const { commandId } = await f.call('workspace_exec', { command: 'cat marker.txt; pwd', cwd: 'sub' });
    const r = await finished(f, commandId);
    assert.match(r.output, /^here/);
    assert.ok(r.output.trim().endsWith('/sub'));
    await refusedWith(f.call('workspace_exec', { command: 'true', cwd: 'file.txt' }), 'not_regular_file');
    await refusedWith(f.call('workspace_exec', { command: 'true', cwd: 'missing' }), 'path_not_found');
  });

  it('returns output from an offset and never starts a character mid-way', async () => {
    const { commandId } = await f.call('workspace_exec', { command: "printf '€€€'" });
    await finished(f, commandId);
    const r = await f.call('workspace_poll', { commandId, offset: 1 });
    assert.equal(r.offset, 3);
    assert.equal(r.output, '€€');
    const end = await f.call('workspace_poll', { commandId, offset: 9 });
    assert.equal(end.output, '');
    assert.equal(end.hasMore, false);
  });

  it('pages output larger than one poll window', async () => {
    const total = MAX_POLL_OUTPUT_BYTES + 1000;
    const { commandId } = await f.call('workspace_exec', { command: `head -c ${total} /dev/zero | tr '\\0' 'a'` });
    await finished(f, commandId);
    const first = await f.call('workspace_poll', { commandId });
    assert.equal(first.output.length, MAX_POLL_OUTPUT_BYTES);
    assert.equal(first.hasMore, true);
    const second = await f.call('workspace_poll', { commandId, offset: first.nextOffset });
    assert.equal(second.output.length, 1000);
    assert.equal(second.hasMore, false);
  });

  it('does not hand Berth settings such as the token to commands', async () => {
    const env = defaultCommandEnv({ ...process.env, BERTH_TOKEN: 'sekrit' });
    const g = toolFixture({}, new CommandManager({ clock: { now: () => Date.now() }, env }));
    try {
      const { commandId } = await g.call('workspace_exec', { command: 'echo "[$BERTH_TOKEN][$GIT_PAGER]"' });
      assert.equal((await finished(g, commandId)).output, '[][cat]\n');
    } finally {
      await g.close();
    }
  });

  it('answers a command id it never issued, or another session asking, with unknown_command', async () => {
    const { commandId } = await f.call('workspace_exec', { command: 'sleep 30' });
    const stranger = '00000000-0000-4000-8000-000000000000';
    for (const tool of ['workspace_poll', 'workspace_stop'] as const) {
      await refusedWith(f.call(tool, { commandId: stranger }), 'unknown_command');
      await refusedWith(f.call(tool, { commandId }, { sessionId: OTHER_SESSION }), 'unknown_command');
    }
    await refusedWith(f.call('workspace_input', { commandId: stranger, text: 'x' }), 'unknown_command');
    await refusedWith(f.call('workspace_input', { commandId, text: 'x' }, { sessionId: OTHER_SESSION }), 'unknown_command');
    // The owner still holds it.
    assert.equal((await f.call('workspace_stop', { commandId })).stopped, true);
  });
});

describe('workspace_input and workspace_stop', () => {
  let f: ToolFixture;
  before(() => {
    f = toolFixture({}, new CommandManager({ clock: { now: () => Date.now() }, killGraceMs: 500 }));
  });
  after(() => f.close());

  it('delivers input text to the command stdin', async () => {
    const { commandId } = await f.call('workspace_exec', { command: 'read line; echo "got:$line"' });
    const w = await f.call('workspace_input', { commandId, text: 'hello there\n' });
    assert.equal(w.bytesWritten, 12);
    const r = await finished(f, commandId);
    assert.equal(r.output, 'got:hello there\n');
    assert.equal(r.exitCode, 0);
  });

  it('refuses input to a command that has ended', async () => {
    const { commandId } = await f.call('workspace_exec', { command: 'true' });
    await finished(f, commandId);
    await refusedWith(f.call('workspace_input', { commandId, text: 'late\n' }), 'command_not_running');
  });

  it('stop kills the whole process group: the shell and the child it spawned are both gone', async () => {
    const { commandId } = await f.call('workspace_exec', { command: TREE });
    const pids = await pidsOf(f, commandId);
    assert.ok(isAlive(pids.shell) && isAlive(pids.grandchild));
    const r = await f.call('workspace_stop', { commandId });
    assert.equal(r.running, false);
    assert.equal(r.stopped, true);
    assert.equal(r.wasRunning, true);
    assert.equal(r.signal, 'SIGTERM');
    await eventually(() => !isAlive(pids.shell) && !isAlive(pids.grandchild), 'both processes to be gone');
  });

  it('a child that ignores SIGTERM is killed after the grace period', async () => {
    const { commandId } = await f.call('workspace_exec', { command: "trap '' TERM; sleep 300 & echo \"sh:$$ gc:$!\"; wait" });
    const pids = await pidsOf(f, commandId);
    const r = await f.call('workspace_stop', { commandId });
    assert.equal(r.running, false);
    await eventually(() => !isAlive(pids.shell) && !isAlive(pids.grandchild), 'both processes to be gone');
  });

  it('stopping a finished command reports how it ended instead of failing', async () => {
    const { commandId } = await f.call('workspace_exec', { command: 'exit 7' });
    await finished(f, commandId);
    const r = await f.call('workspace_stop', { commandId });
    assert.equal(r.wasRunning, false);
    assert.equal(r.stopped, false);
    assert.equal(r.exitCode, 7);
  });

  it('a timeout kills the whole group and is reported as timedOut', async () => {
    const { commandId } = await f.call('workspace_exec', { command: TREE, timeoutMs: 1000 });
    const pids = await pidsOf(f, commandId);
    const r = await finished(f, commandId);
    assert.equal(r.timedOut, true);
    assert.equal(r.stopped, false);
    assert.equal(r.exitCode, null);
    await eventually(() => !isAlive(pids.shell) && !isAlive(pids.grandchild), 'both processes to be gone');
  });

  it('what a command leaves running when its shell exits is terminated too', async () => {
    const { commandId } = await f.call('workspace_exec', { command: 'sleep 300 & echo "sh:$$ gc:$!"' });
    const pids = await pidsOf(f, commandId);
    const r = await finished(f, commandId);
    assert.equal(r.exitCode, 0);
    await eventually(() => !isAlive(pids.grandchild), 'the background child to be gone');
  });
});

describe('the command manager bounds', () => {
  it('keeps only the tail of a chatty command and says how much was dropped', async () => {
    const f = toolFixture({}, new CommandManager({ clock: { now: () => Date.now() }, maxOutputBytes: 1000 }));
    try {
      const { commandId } = await f.call('workspace_exec', { command: 'seq 1 2000' });
      const r = await finished(f, commandId);
      const full = Array.from({ length: 2000 }, (_, i) => `${i + 1}\n`).join('');
      assert.equal(r.totalBytes, full.length);
      assert.equal(r.droppedBytes, full.length - 1000);
      assert.equal(r.outputDropped, true);
      assert.equal(r.offset, full.length - 1000);
      assert.equal(r.output, full.slice(-1000));
    } finally {
      await f.close();
    }
  });

  it('forgets finished commands once the retention has passed on its clock', async () => {
    let now = 1_000_000;
    const f = toolFixture({}, new CommandManager({ clock: { now: () => now }, retentionMs: 60_000 }));
    try {
      const { commandId } = await f.call('workspace_exec', { command: 'echo done' });
      await finished(f, commandId);
      now += 59_999;
      assert.equal((await f.call('workspace_poll', { commandId })).output, 'done\n');
      now += 1;
      await refusedWith(f.call('workspace_poll', { commandId }), 'unknown_command');
    } finally {
      await f.close();
    }
  });

  it('caps commands per session: the oldest finished one makes room, all running refuses', async () => {
    const f = toolFixture({}, new CommandManager({ clock: { now: () => Date.now() }, maxPerSession: 2 }));
    try {
      const a = await f.call('workspace_exec', { command: 'true' });
      await finished(f, a.commandId);
      const b = await f.call('workspace_exec', { command: 'sleep 300' });
      const c = await f.call('workspace_exec', { command: 'sleep 300' });
      await refusedWith(f.call('workspace_poll', { commandId: a.commandId }), 'unknown_command');
      await refusedWith(f.call('workspace_exec', { command: 'true' }), 'command_limit_exceeded');
      // Another session has its own allowance.
      const other = await f.call('workspace_exec', { command: 'true' }, { sessionId: OTHER_SESSION });
      assert.match(other.commandId, UUID_V4);
      assert.equal((await f.call('workspace_poll', { commandId: b.commandId })).running, true);
      assert.equal((await f.call('workspace_poll', { commandId: c.commandId })).running, true);
    } finally {
      await f.close();
    }
  });

  it('dispose kills every running command once, and refuses new ones after', async () => {
    const manager = new CommandManager({ clock: { now: () => Date.now() }, killGraceMs: 500 });
    const f = toolFixture({}, manager);
    try {
      const { commandId } = await f.call('workspace_exec', { command: TREE });
      const pids = await pidsOf(f, commandId);
      const first = manager.dispose();
      assert.equal(manager.dispose(), first);
      await first;
      await eventually(() => !isAlive(pids.shell) && !isAlive(pids.grandchild), 'both processes to be gone');
      await refusedWith(f.call('workspace_exec', { command: 'true' }), 'daemon_shutdown');
    } finally {
      await f.close();
    }
  });

  it('releasing a session stops and forgets its commands only', async () => {
    const f = toolFixture({});
    try {
      const mine = await f.call('workspace_exec', { command: 'sleep 300' });
      const theirs = await f.call('workspace_exec', { command: 'sleep 300' }, { sessionId: OTHER_SESSION });
      await f.commands.releaseSession(SESSION);
      await refusedWith(f.call('workspace_poll', { commandId: mine.commandId }), 'unknown_command');
      assert.equal((await f.call('workspace_poll', { commandId: theirs.commandId }, { sessionId: OTHER_SESSION })).running, true);
    } finally {
      await f.close();
    }
  });
});
