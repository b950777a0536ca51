import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { spawnBerth } from '../support/daemon.js';
import { natsMissing, startNats } from '../support/nats.js';
import { postgresMissing, startPostgres, type PostgresServer } from '../support/postgres.js';
import { removeDir, tempDir } from '../support/tmp.js';

/**
 * docs/cluster-bus.md: a node that cannot reach the bus at start-up refuses to start, and says
 * which bus without printing its password. The nats-server here is started and stopped first, so
 * its port is a real address with nobody listening.
 */
const missing = natsMissing() ?? postgresMissing();

describe('a node whose bus is down when it starts', { skip: missing, timeout: 120_000 }, () => {
  let pg: PostgresServer;
  let deadBus: string;
  const home = tempDir('berth-bus-down-');
  before(async () => {
    pg = await startPostgres();
    const nats = await startNats();
    deadBus = nats.url;
    await nats.stop();
  });
  after(async () => {
    await pg?.stop();
    removeDir(home);
  });

  test('exits with an error naming the bus, its password hidden, and never listens', async () => {
    const withPassword = deadBus.replace('nats://', 'nats://berth:bus-secret-1234@');
    const child = spawnBerth(['serve', '--port', '0', '--home', home, '--workspace', home, '--store', await pg.createDatabase(), '--bus', withPassword, '--node-id', 'n1'], {
      BERTH_TOKEN: 'bus-down-test-token',
      OPENAI_BASE_URL: '',
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    assert.notEqual(code, 0, `the node must not run without its bus: ${stderr}`);
    assert.match(stdout + stderr, new RegExp(`cannot reach the cluster bus at nats://berth:\\*\\*\\*@127\\.0\\.0\\.1:${new URL(deadBus).port}`));
    assert.doesNotMatch(stdout + stderr, /bus-secret-1234/, 'the password is never printed');
    assert.doesNotMatch(stdout, /berth listening on/, 'it never opened its port');
  });
});
