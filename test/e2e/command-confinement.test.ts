import assert from 'node:assert/strict';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Workspace } from '../../src/workspace/types.js';
import { machineSandbox } from '../../src/tools/builtin/commands/sandbox.js';
import { allowWithoutAsking } from '../../src/tools/permission.js';
import { startTestDaemon, type TestDaemon } from '../support/daemon.js';
import { removeDir, tempDir } from '../support/tmp.js';

/**
 * Issue 16, finding 4: a `workspace_exec` command tries what an attacker's
 * command would — the daemon's command line and environment, the home
 * database, another workspace, a loopback port — and gets none of it.
 */

const SESSION = '0b7e4a52-3c1d-4e8f-9a2b-6d5c4e3f2a10';
const MODEL_KEY = 'sk-model-key-the-daemon-holds-0123';
const sandbox = machineSandbox();
const noSandbox = sandbox.available ? false : `no usable bubblewrap here: ${sandbox.reason}`;

let calls = 0;

/** Runs `command` with workspace_exec in `workspace` and polls it to the end; resolves with its output and exit code. */
async function run(d: TestDaemon, workspace: Workspace, command: string): Promise<{ output: string; exitCode: number | null }> {
  const set = d.daemon.core.tools.toolSet({ workspace, sessionId: SESSION, namespace: 'test', permission: allowWithoutAsking });
  const started = await set.call({ callId: `c${++calls}`, name: 'workspace_exec', args: { command } });
  assert.ok(started.ok, JSON.stringify(started));
  const { commandId } = started.result.value as { commandId: string };
  const until = Date.now() + 30_000;
  for (;;) {
    const polled = await set.call({ callId: `c${++calls}`, name: 'workspace_poll', args: { commandId } });
    assert.ok(polled.ok, JSON.stringify(polled));
    const v = polled.result.value as { running: boolean; output: string; exitCode: number | null };
    if (!v.running) return v;
    if (Date.now() > until) assert.fail(`command did not finish: ${command}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A one-line node script that connects to 127.0.0.1:`port` and prints CONNECTED or the error code. */
const connectTo = (port: number) =>
  `"${process.execPath}" -e "require('net').connect(${port},'127.0.0.1').on('connect',()=>{console.log('CONNECTED');process.exit(0)}).on('error',e=>{console.log(e.code);process.exit(0)})"`;

describe('workspace_exec commands run confined', { skip: noSandbox }, () => {
  let d: TestDaemon;
  let offlineRoot: string;
  let offline: Workspace;
  let primary: Workspace;
  before(async () => {
    process.env.OPENAI_API_KEY = MODEL_KEY;
    offlineRoot = tempDir('berth-ws-offline-');
    writeFileSync(join(offlineRoot, 'secret.txt'), 'offline workspace secret');
    const primaryRoot = tempDir('berth-ws-');
    d = await startTestDaemon({
      workspace: primaryRoot,
      files: { 'mine.txt': 'my own file' },
      config: {
        workspaces: [primaryRoot, offlineRoot],
        workspaceSettings: { [offlineRoot]: { network: false, passEnv: ['OPENAI_API_KEY'], env: { CI: '1' } } },
      },
    });
    primary = d.daemon.core.workspaces.primary();
    offline = d.daemon.core.workspaces.list().find((w) => w.kind === 'local' && w.root === offlineRoot)!;
  });
  after(async () => {
    delete process.env.OPENAI_API_KEY;
    await d.close();
    removeDir(d.workspace);
    removeDir(offlineRoot);
  });

  it('cannot read the daemon’s command line or environment through /proc/$PPID, nor see its process at all', async () => {
    const r = await run(d, primary, 'cat /proc/$PPID/cmdline; echo; cat /proc/$PPID/environ; echo; ls /proc | grep -c "^[0-9]"');
    assert.ok(!r.output.includes('command-confinement.test'), r.output);
    assert.ok(!r.output.includes('NODE_TEST_CONTEXT'), r.output);
    assert.ok(!r.output.includes(String(process.pid)), 'the daemon pid is not among its processes');
    const own = r.output.trim().split('\n').at(-1)!;
    assert.ok(Number(own) <= 4, `only the sandbox's own processes are listed: ${own}`);
  });

  it('gets no model key nor Berth setting unless its workspace passes it on', async () => {
    const plain = await run(d, primary, 'env');
    assert.ok(!plain.output.includes(MODEL_KEY), plain.output);
    assert.ok(!/^BERTH_/m.test(plain.output), plain.output);
    assert.match(plain.output, /^PATH=/m);
    const passed = await run(d, offline, 'echo "key=$OPENAI_API_KEY ci=$CI"');
    assert.equal(passed.output.trim(), `key=${MODEL_KEY} ci=1`);
  });

  it('cannot read the home database, nor see the home at all', async () => {
    const db = join(d.home, 'berth.db');
    assert.ok(existsSync(db));
    const r = await run(d, primary, `cat "${db}" >/dev/null 2>&1 && echo READ || echo REFUSED; ls -A "${d.home}" | wc -l`);
    assert.deepEqual(r.output.trim().split('\n'), ['REFUSED', '0']);
  });

  it('cannot read another workspace, but reads and writes its own', async () => {
    const r = await run(d, primary, `cat "${join(offlineRoot, 'secret.txt')}" 2>/dev/null || echo REFUSED; cat mine.txt; echo; echo made > made.txt && echo WROTE`);
    assert.deepEqual(r.output.trim().split('\n'), ['REFUSED', 'my own file', 'WROTE']);
    assert.ok(existsSync(join(d.workspace, 'made.txt')));
  });

  it('cannot write to the system', async () => {
    const probe = `/usr/berth-was-here-${process.pid}`;
    try {
      const r = await run(d, primary, `touch ${probe} 2>/dev/null && echo WROTE || echo REFUSED`);
      assert.equal(r.output.trim(), 'REFUSED');
      assert.ok(!existsSync(probe));
    } finally {
      rmSync(probe, { force: true });
    }
  });

  it('reaches a loopback port only when its tab is networked', async () => {
    const port = d.daemon.port;
    assert.equal((await run(d, primary, connectTo(port))).output.trim(), 'CONNECTED');
    assert.equal((await run(d, offline, connectTo(port))).output.trim(), 'ECONNREFUSED');
  });

  it('says so in /capabilities, and a tab of the offline workspace is network: false', async () => {
    const caps = await d.json('GET', '/capabilities');
    assert.deepEqual(caps.body.commandSandbox, { sandbox: 'bubblewrap', offlineWorkspaces: [offline.id] });
    const created = await d.json('POST', '/session', { cwd: offlineRoot });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const tab = await d.json('GET', `/session/${created.body.sessionId}/module`);
    assert.equal(tab.body.network, false, JSON.stringify(tab.body));
  });
});

describe('without bubblewrap', () => {
  let d: TestDaemon;
  before(async () => {
    process.env.OPENAI_API_KEY = MODEL_KEY;
    d = await startTestDaemon({ sandbox: { available: false, tool: null, reason: 'bubblewrap (bwrap) is not installed' } });
  });
  after(async () => {
    delete process.env.OPENAI_API_KEY;
    await d.close();
  });

  it('says so in /capabilities, and commands still get a scrubbed environment', async () => {
    const caps = await d.json('GET', '/capabilities');
    assert.deepEqual(caps.body.commandSandbox, { sandbox: null, reason: 'bubblewrap (bwrap) is not installed', offlineWorkspaces: [] });
    const r = await run(d, d.daemon.core.workspaces.primary(), 'env');
    assert.ok(!r.output.includes(MODEL_KEY), r.output);
  });
});
