import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { resolveConfig, type ConfigInput } from '../../src/config/config.js';
import { startDaemon, type Daemon } from '../../src/main/daemon.js';
import { removeDir, tempDir } from '../support/tmp.js';

type LogLine = Record<string, unknown> & { msg?: string };

/** A real daemon on a loopback port whose debug log is kept in memory. */
async function daemonWithLog(config: ConfigInput): Promise<{ daemon: Daemon; lines: LogLine[]; close(): Promise<void> }> {
  const home = tempDir('berth-home-');
  const workspace = tempDir('berth-ws-');
  const lines: LogLine[] = [];
  const log = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
  const daemon = await startDaemon({
    config: resolveConfig({ port: 0, hostname: '127.0.0.1', home, workspaces: [workspace], modelServices: [], ...config }, {}),
    log,
    sandbox: { available: false, tool: null, reason: 'not needed here' },
  });
  return {
    daemon,
    lines,
    async close() {
      await daemon.close();
      removeDir(home);
      removeDir(workspace);
    },
  };
}

/** Polls (up to 15 s) until a line with `msg` is logged; the log up to then. */
async function logUntil(lines: LogLine[], msg: string): Promise<LogLine[]> {
  for (let waited = 0; waited < 15_000; waited += 20) {
    if (lines.some((l) => l.msg === msg)) return [...lines];
    await sleep(20);
  }
  throw new Error(`no "${msg}" in the log`);
}

/** The rows the daemon's store holds in `table`. */
function rows(daemon: Daemon, table: string): number {
  assert.equal(daemon.store.engine, 'sqlite');
  return (daemon.store.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
}

describe('the start-up request warm-up (issue 17)', () => {
  it('runs the request path of an anonymous daemon, answered as expected, before the start-up collection, and leaves nothing behind', async () => {
    const d = await daemonWithLog({});
    try {
      const log = await logUntil(d.lines, 'start-up garbage collected');
      const warmed = log.findIndex((l) => l.msg === 'request path warmed');
      assert.ok(warmed !== -1 && warmed < log.findIndex((l) => l.msg === 'start-up garbage collected'));
      // Every prompt got as far as the session lookup: refused there, not by the security checks or the body parser.
      assert.deepEqual(log[warmed]!.statuses, { 200: 30, 404: 30 });
      assert.equal(rows(d.daemon, 'sessions'), 0);
      assert.equal(rows(d.daemon, 'prompts'), 0);
    } finally {
      await d.close();
    }
  });

  it('presents the owner token of a daemon that has one', async () => {
    const d = await daemonWithLog({ token: 'warm-up-owner-token', requireAuth: true });
    try {
      const log = await logUntil(d.lines, 'request path warmed');
      assert.deepEqual(log.find((l) => l.msg === 'request path warmed')!.statuses, { 200: 30, 404: 30 });
    } finally {
      await d.close();
    }
  });

  it('sends nothing where a rate limit would count it against the clients', async () => {
    const d = await daemonWithLog({ rateLimits: [{ tier: 'prompt', max: 2, windowMs: 60_000 }] });
    try {
      const log = await logUntil(d.lines, 'start-up garbage collected');
      assert.equal(log.filter((l) => l.msg === 'request path warmed').length, 0);
    } finally {
      await d.close();
    }
  });
});
