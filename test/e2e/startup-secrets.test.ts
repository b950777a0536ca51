import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { spawnBerth, spawnDaemon } from '../support/daemon.js';
import { removeDir, tempDir } from '../support/tmp.js';

/** Issue 16, findings 4 and 6: where the owner token and the home's secrets can be read, and by whom. */

const TOKEN = 'owner-token-kept-off-the-command-line-0123';
const isRoot = process.getuid?.() === 0;

async function exitOf(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawnBerth(args, { BERTH_TOKEN: '' });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, stderr };
}

/** Runs `node -e script` as another local user (uid 65534, "nobody"); resolves with its stdout. */
function asNobody(script: string, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script, ...args], { uid: 65534, gid: 65534, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.once('error', reject);
    child.once('exit', () => resolve(out.trim()));
  });
}

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

describe('the owner token stays off the command line', () => {
  it('--token-file gives the daemon its token; the command line shows only the file name', async () => {
    const home = tempDir('berth-home-');
    const ws = tempDir('berth-ws-');
    const file = join(home, 'owner.token');
    writeFileSync(file, `${TOKEN}\n`, { mode: 0o600 });
    const daemon = await spawnDaemon(['--home', home, '--workspace', ws, '--token-file', file], { BERTH_TOKEN: '' });
    try {
      assert.equal((await fetch(daemon.url + '/capabilities')).status, 401);
      const ok = await fetch(daemon.url + '/capabilities', { headers: { authorization: `Bearer ${TOKEN}` } });
      assert.equal(ok.status, 200);
      assert.ok(!readFileSync(`/proc/${daemon.child.pid}/cmdline`, 'latin1').includes(TOKEN));
    } finally {
      await daemon.stop();
      removeDir(home);
      removeDir(ws);
    }
  });

  it('--token still works but warns, and the token is gone from /proc/PID/cmdline once the daemon listens', async () => {
    const home = tempDir('berth-home-');
    const ws = tempDir('berth-ws-');
    const daemon = await spawnDaemon(['--home', home, '--workspace', ws, '--token', TOKEN], { BERTH_TOKEN: '' });
    try {
      assert.match(daemon.stderr(), /warning: --token puts the owner token on the command line/);
      const cmdline = readFileSync(`/proc/${daemon.child.pid}/cmdline`, 'latin1');
      assert.ok(!cmdline.includes(TOKEN), cmdline);
      const ok = await fetch(daemon.url + '/capabilities', { headers: { authorization: `Bearer ${TOKEN}` } });
      assert.equal(ok.status, 200);
    } finally {
      await daemon.stop();
      removeDir(home);
      removeDir(ws);
    }
  });

  it('refuses --token and --token-file together, and an empty token file', async () => {
    const home = tempDir('berth-home-');
    try {
      const file = join(home, 'empty.token');
      writeFileSync(file, '\n');
      const both = await exitOf(['serve', '--port', '0', '--home', home, '--token', TOKEN, '--token-file', file]);
      assert.equal(both.code, 2);
      assert.match(both.stderr, /not both/);
      const empty = await exitOf(['serve', '--port', '0', '--home', home, '--token-file', file]);
      assert.equal(empty.code, 2);
      assert.match(empty.stderr, /must hold one token/);
    } finally {
      removeDir(home);
    }
  });
});

describe('--allow-origin *', () => {
  it('is refused without a token: any web page could otherwise drive the daemon', async () => {
    const home = tempDir('berth-home-');
    try {
      const { code, stderr } = await exitOf(['serve', '--port', '0', '--home', home, '--allow-origin', '*']);
      assert.equal(code, 2);
      assert.match(stderr, /--allow-origin \* lets any web page call the daemon; it needs a token/);
    } finally {
      removeDir(home);
    }
  });
});

describe('the home and its database belong to the daemon user alone', () => {
  it('tightens an existing 0755 home and a 0644 database to 0700 and 0600, the -wal and -shm files too', async () => {
    const home = tempDir('berth-home-');
    const ws = tempDir('berth-ws-');
    chmodSync(home, 0o755);
    writeFileSync(join(home, 'berth.db'), '');
    chmodSync(join(home, 'berth.db'), 0o644);
    const daemon = await spawnDaemon(['--home', home, '--workspace', ws], { BERTH_TOKEN: '' });
    try {
      await fetch(daemon.url + '/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      assert.equal(mode(home), '700');
      for (const f of ['berth.db', 'berth.db-wal', 'berth.db-shm']) assert.equal(mode(join(home, f)), '600', f);
      if (isRoot) {
        const read = `try { require('fs').readFileSync(process.argv[1]); console.log('READ') } catch (e) { console.log(e.code) }`;
        assert.equal(await asNobody(read, join(home, 'berth.db')), 'EACCES');
      }
    } finally {
      await daemon.stop();
      removeDir(home);
      removeDir(ws);
    }
  });

  it('refuses to start on a home that others can write, saying why', async () => {
    const home = tempDir('berth-home-');
    try {
      chmodSync(home, 0o777);
      const { code, stderr } = await exitOf(['serve', '--port', '0', '--home', home]);
      assert.equal(code, 1);
      assert.match(stderr, /is writable by others \(mode 777\); refusing to start/);
      assert.equal(mode(home), '777', 'nothing was repaired or created in it');
    } finally {
      removeDir(home);
    }
  });
});
