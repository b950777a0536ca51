import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { spawnBerth, startTestDaemon, type TestDaemon } from '../support/daemon.js';
import { channelPathFor, dialChannel, WORKSPACE_ID } from '../support/gateway.js';
import { removeDir, tempDir } from '../support/tmp.js';

/**
 * Issue 5: `berth token create --channel --workspace ID --home DIR` prints only
 * the token, stores only its hash, and the token opens that workspace's channel
 * on a daemon serving the same home.
 */

let home: string;
let b: TestDaemon;

const run = (args: string[]) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawnBerth(args);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });

before(() => {
  home = tempDir('berth-home-');
});
after(async () => {
  await b?.close();
  removeDir(home);
});

test('a channel token is printed alone, stored as a hash, and opens its workspace’s channel', { timeout: 60_000 }, async () => {
  const created = await run(['token', 'create', '--channel', '--workspace', WORKSPACE_ID, '--home', home]);
  assert.equal(created.code, 0, created.stderr);
  assert.match(created.stdout, /^berth_ch_[A-Za-z0-9_-]{43}\n$/, 'only the token, on one line');
  const token = created.stdout.trim();

  const db = new Database(join(home, 'berth.db'), { readonly: true });
  const rows = db.prepare('SELECT * FROM tokens').all() as Record<string, unknown>[];
  db.close();
  assert.equal(rows.length, 1);
  assert.equal(rows[0]!.scope, 'channel');
  assert.equal(rows[0]!.workspace_id, WORKSPACE_ID);
  assert.equal(JSON.stringify(rows).includes(token), false, 'the token itself is not stored');

  b = await startTestDaemon({ home, config: { remoteWorkspaces: [WORKSPACE_ID], modelServices: [] } });
  const opened = await dialChannel(b.url, channelPathFor(), { authorization: `Bearer ${token}` });
  assert.ok(opened.ok);
  if (opened.ok) await opened.channel.close();
});

test('a channel token needs a workspace id that is a name, not a path', { timeout: 60_000 }, async () => {
  const refused = await run(['token', 'create', '--channel', '--workspace', '../etc', '--home', home]);
  assert.equal(refused.code, 2);
  assert.equal(refused.stdout, '');
  assert.match(refused.stderr, /remote workspace id/);
});
