import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { spawnDaemon, type SpawnedDaemon } from '../support/daemon.js';
import { packageLoads } from '../support/load-order/packages.js';
import { natsMissing, startNats, type NatsServer } from '../support/nats.js';
import { postgresMissing, startPostgres, type PostgresServer } from '../support/postgres.js';
import { removeDir, tempDir } from '../support/tmp.js';
import { BWRAP_PATHS } from '../../src/tools/builtin/commands/sandbox.js';

/**
 * Issue 17: the port answers before the heavy modules are loaded. A preload
 * (test/support/load-order) writes every module the daemon loads and the
 * moment its TCP port listens into one file, in order; nothing here looks at
 * a clock. The daemon is the built command, as `npm install` ships it: the
 * bundle of scripts/bundle.mjs, whose chunks are told apart by the packages
 * esbuild's metafile says they hold.
 */
const HEAVY = ['openai', '@agentclientprotocol/sdk', '@modelcontextprotocol/sdk', 'sharp', 'pdfjs-dist', 're2js'];
/** The bubblewrap the daemon's sandbox probe runs, if this machine has one. */
const bubblewrap = BWRAP_PATHS.find((p) => existsSync(p));
const preload = new URL('../support/load-order/preload.mjs', import.meta.url).href;
const packagesOf = packageLoads(new URL('../..', import.meta.url).pathname);

/** The daemon's load log, and helpers to find where in it something happened. */
function loadLog(file: string) {
  const lines = () => readFileSync(file, 'utf8').split('\n').filter(Boolean);
  const loads = (log: readonly string[], pkg: string) => log.flatMap((l, i) => (l.startsWith('load ') && packagesOf(l).has(pkg) ? [i] : []));
  return {
    lines,
    loads,
    listening: (log: readonly string[]) => log.findIndex((l) => l.startsWith('listening ')),
    /** Polls until `pkg` has loaded (up to 10 s), then the whole log. */
    after(pkg: string) {
      return until((log) => loads(log, pkg).length > 0);
    },
    until,
  };
  /** Polls until `seen` holds for the log (up to 10 s), then the whole log. */
  async function until(seen: (log: readonly string[]) => boolean) {
    let log = lines();
    for (let i = 0; i < 200 && !seen(log); i++) {
      await new Promise((r) => setTimeout(r, 50));
      log = lines();
    }
    return log;
  }
}

async function startLogged(dir: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ daemon: SpawnedDaemon; file: string }> {
  mkdirSync(join(dir, 'ws'));
  const file = join(dir, 'loads.log');
  writeFileSync(file, '');
  const daemon = await spawnDaemon(
    ['--home', join(dir, 'home'), '--workspace', join(dir, 'ws'), ...args],
    { BERTH_LOAD_LOG: file, NODE_OPTIONS: `--import ${preload}`, ...env },
    true,
  );
  return { daemon, file };
}

describe('start-up order', { timeout: 120_000 }, () => {
  let dir: string;
  let daemon: SpawnedDaemon;
  let log: ReturnType<typeof loadLog>;
  before(async () => {
    dir = tempDir('berth-startup-order-');
    // A model service, so there is a model client to load; the warm-up's model list request fails quietly (port 9).
    const started = await startLogged(dir, [], { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_MODEL: 'scripted' });
    daemon = started.daemon;
    log = loadLog(started.file);
  });
  after(async () => {
    await daemon?.stop();
    removeDir(dir);
  });

  it('answers /health before the model client, agent and MCP SDKs and the image and PDF libraries are loaded', async () => {
    assert.equal((await fetch(`${daemon.url}/health`)).status, 200);
    const lines = log.lines();
    const listening = log.listening(lines);
    assert.ok(listening > 0, `the preload saw the port open: ${lines.length} lines`);
    assert.ok(log.loads(lines.slice(0, listening), 'fastify').length > 0, 'loads are recorded (fastify came before the port)');
    const early = HEAVY.filter((pkg) => log.loads(lines.slice(0, listening), pkg).length > 0);
    assert.deepEqual(early, [], 'nothing heavy loads before the port opens');
  });

  it('loads the model client right after, without waiting for a prompt', async () => {
    const lines = await log.after('openai');
    const openai = log.loads(lines, 'openai')[0] ?? -1;
    const listening = log.listening(lines);
    assert.ok(openai > listening, `the openai package loads after the port opens (line ${openai}, port at ${listening})`);
  });

  it('collects the garbage of the background loading once, after it', async () => {
    const lines = await log.until((l) => l.includes('gc forced'));
    const collected = lines.indexOf('gc forced');
    const openai = log.loads(lines, 'openai')[0] ?? -1;
    assert.ok(openai > log.listening(lines) && collected > openai, `one full collection after the model client loaded (line ${collected}, openai at ${openai})`);
    assert.equal((await fetch(`${daemon.url}/health`)).status, 200);
    assert.equal(log.lines().filter((l) => l === 'gc forced').length, 1, 'and only one');
  });

  it('runs the sandbox probe after the port opens', { skip: bubblewrap ? false : 'bubblewrap is not installed' }, async () => {
    const lines = await log.until((l) => l.some((line) => line.startsWith(`spawn ${bubblewrap}`)));
    const probe = lines.findIndex((line) => line.startsWith(`spawn ${bubblewrap}`));
    const listening = log.listening(lines);
    assert.ok(listening > 0 && probe > listening, `bubblewrap's trial run starts after the port opens (line ${probe}, port at ${listening})`);
  });

  it('a session with the built-in agent loads no agent or MCP SDK', async () => {
    const res = await fetch(`${daemon.url}/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ cwd: join(dir, 'ws') }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    const lines = log.lines();
    assert.deepEqual(log.loads(lines, '@agentclientprotocol/sdk'), []);
    assert.deepEqual(log.loads(lines, '@modelcontextprotocol/sdk'), []);
  });

  it('a daemon without a cluster bus never loads the NATS client', async () => {
    assert.equal((await fetch(`${daemon.url}/health`)).status, 200);
    const lines = log.lines();
    assert.deepEqual(log.loads(lines, '@nats-io/nats-core'), []);
    assert.deepEqual(log.loads(lines, '@nats-io/transport-node'), []);
  });
});

describe('start-up order with a default agent', { timeout: 120_000 }, () => {
  let dir: string;
  let daemon: SpawnedDaemon;
  let log: ReturnType<typeof loadLog>;
  before(async () => {
    dir = tempDir('berth-startup-order-agent-');
    // `--agent` with a command that is never run: no session asks for the agent here.
    const started = await startLogged(dir, ['--agent', 'warm', '--agent-command', process.execPath], {});
    daemon = started.daemon;
    log = loadLog(started.file);
  });
  after(async () => {
    await daemon?.stop();
    removeDir(dir);
  });

  it('loads the ACP SDK after the port opens, before any agent session asks for it', async () => {
    const lines = await log.after('@agentclientprotocol/sdk');
    const listening = log.listening(lines);
    const sdk = log.loads(lines, '@agentclientprotocol/sdk')[0] ?? -1;
    assert.ok(listening > 0 && sdk > listening, `the ACP SDK loads after the port opens (line ${sdk}, port at ${listening})`);
  });
});

/**
 * The built node joins its bus: the NATS client is a chunk of the bundle whose
 * exports differ from the package's under tsx, so only the built command shows
 * that `--bus` works as shipped.
 */
const clusterMissing = postgresMissing() ?? natsMissing();
describe('start-up of a built cluster node', { skip: clusterMissing, timeout: 120_000 }, () => {
  let dir: string;
  let postgres: PostgresServer;
  let nats: NatsServer;
  let daemon: SpawnedDaemon | undefined;
  before(async () => {
    dir = tempDir('berth-startup-order-node-');
    [postgres, nats] = await Promise.all([startPostgres(), startNats()]);
  });
  after(async () => {
    await daemon?.stop();
    await Promise.all([postgres?.stop(), nats?.stop()]);
    removeDir(dir);
  });

  it('joins the bus and has loaded the NATS client', async () => {
    const started = await startLogged(dir, ['--store', await postgres.createDatabase(), '--bus', nats.url, '--node-id', 'n1'], { BERTH_TOKEN: 'node-token-for-the-start-up-test' });
    daemon = started.daemon;
    const res = await fetch(`${daemon.url}/health?deep=1`, { headers: { authorization: 'Bearer node-token-for-the-start-up-test' } });
    const body = (await res.json()) as { busReachable?: boolean };
    assert.equal(body.busReachable, true);
    const lines = loadLog(started.file).lines();
    assert.ok(loadLog(started.file).loads(lines, '@nats-io/transport-node').length > 0, 'the NATS client was loaded');
  });
});
