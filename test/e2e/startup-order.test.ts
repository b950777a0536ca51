import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { spawnDaemon, type SpawnedDaemon } from '../support/daemon.js';
import { removeDir, tempDir } from '../support/tmp.js';

/**
 * Issue 17: the port answers before the heavy modules are loaded. A preload
 * (test/support/load-order) writes every module the daemon loads and the
 * moment its TCP port listens into one file, in order; nothing here looks at
 * a clock.
 */
const HEAVY = /\/node_modules\/(openai|@agentclientprotocol\/sdk|@modelcontextprotocol\/sdk|sharp|pdfjs-dist)\//;
const preload = new URL('../support/load-order/preload.mjs', import.meta.url).href;

describe('start-up order', { timeout: 120_000 }, () => {
  let dir: string;
  let logFile: string;
  let daemon: SpawnedDaemon;
  before(async () => {
    dir = tempDir('berth-startup-order-');
    mkdirSync(join(dir, 'ws'));
    logFile = join(dir, 'loads.log');
    writeFileSync(logFile, '');
    daemon = await spawnDaemon(['--home', join(dir, 'home'), '--workspace', join(dir, 'ws')], {
      BERTH_LOAD_LOG: logFile,
      NODE_OPTIONS: `--import ${preload}`,
      // A model service, so there is a model client to load: nothing asks it anything.
      OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
      OPENAI_MODEL: 'scripted',
    });
  });
  after(async () => {
    await daemon?.stop();
    removeDir(dir);
  });

  const lines = () => readFileSync(logFile, 'utf8').split('\n').filter(Boolean);

  it('answers /health before the model client, agent and MCP SDKs and the image and PDF libraries are loaded', async () => {
    assert.equal((await fetch(`${daemon.url}/health`)).status, 200);
    const log = lines();
    const listening = log.findIndex((l) => l.startsWith('listening '));
    assert.ok(listening > 0, `the preload saw the port open: ${log.length} lines`);
    assert.ok(log.slice(0, listening).some((l) => /\/node_modules\/fastify\//.test(l)), 'loads are recorded (fastify came before the port)');
    const early = log.slice(0, listening).filter((l) => HEAVY.test(l));
    assert.deepEqual(early, [], 'nothing heavy loads before the port opens');
  });

  it('loads the model client right after, without waiting for a prompt', async () => {
    let log = lines();
    for (let i = 0; i < 200 && !log.some((l) => /\/node_modules\/openai\//.test(l)); i++) {
      await new Promise((r) => setTimeout(r, 50));
      log = lines();
    }
    const listening = log.findIndex((l) => l.startsWith('listening '));
    const openai = log.findIndex((l) => /\/node_modules\/openai\//.test(l));
    assert.ok(openai > listening, `the openai package loads after the port opens (line ${openai}, port at ${listening})`);
  });

  it('a session with the built-in agent loads no agent or MCP SDK', async () => {
    const res = await fetch(`${daemon.url}/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ cwd: join(dir, 'ws') }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    const loaded = lines().filter((l) => /\/node_modules\/(@agentclientprotocol\/sdk|@modelcontextprotocol\/sdk)\//.test(l));
    assert.deepEqual(loaded, []);
  });
});

describe('start-up order with a default agent', { timeout: 120_000 }, () => {
  let dir: string;
  let logFile: string;
  let daemon: SpawnedDaemon;
  before(async () => {
    dir = tempDir('berth-startup-order-agent-');
    mkdirSync(join(dir, 'ws'));
    logFile = join(dir, 'loads.log');
    writeFileSync(logFile, '');
    // `--agent` with a command that is never run: no session asks for the agent here.
    daemon = await spawnDaemon(['--home', join(dir, 'home'), '--workspace', join(dir, 'ws'), '--agent', 'warm', '--agent-command', process.execPath], {
      BERTH_LOAD_LOG: logFile,
      NODE_OPTIONS: `--import ${preload}`,
    });
  });
  after(async () => {
    await daemon?.stop();
    removeDir(dir);
  });

  it('loads the ACP SDK after the port opens, before any agent session asks for it', async () => {
    const lines = () => readFileSync(logFile, 'utf8').split('\n').filter(Boolean);
    const acpSdk = /\/node_modules\/@agentclientprotocol\/sdk\//;
    let log = lines();
    for (let i = 0; i < 200 && !log.some((l) => acpSdk.test(l)); i++) {
      await new Promise((r) => setTimeout(r, 50));
      log = lines();
    }
    const listening = log.findIndex((l) => l.startsWith('listening '));
    const sdk = log.findIndex((l) => acpSdk.test(l));
    assert.ok(listening > 0 && sdk > listening, `the ACP SDK loads after the port opens (line ${sdk}, port at ${listening})`);
  });
});
