// The benchmark harness's own machinery: statistics, the fixture, process-tree teardown, the
// interleaved sampler and the gateway bench's bare wire. No timing is asserted here (benchmarks are
// not tests); these check that the harness measures what it says it measures and leaves nothing running.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { removeDir, tempDir } from '../../support/tmp.js';

// The harness is plain .mjs (no TypeScript loader inside measured processes); loading it by URL
// keeps tsc from asking for declarations of untyped modules.
const load = (path: string): Promise<any> => import(new URL(`../../../bench/${path}`, import.meta.url).href);

/** Running = has a /proc entry that is not a zombie (an orphan may wait a while to be reaped). */
function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    return false;
  }
}

function manifest(root: string): string {
  const lines: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const abs = join(dir, entry.name);
      if (entry.name === '.git') continue;
      if (entry.isDirectory()) walk(abs);
      else lines.push(`${relative(root, abs)} ${createHash('sha256').update(readFileSync(abs)).digest('hex')}`);
    }
  };
  walk(root);
  return lines.sort().join('\n');
}

describe('benchmark statistics', () => {
  it('takes the middle value as the median of an odd count and the mean of the middle pair of an even count', async () => {
    const { median } = await load('lib/stats.mjs');
    assert.equal(median([5, 1, 3]), 3);
    assert.equal(median([4, 1, 3, 2]), 2.5);
  });

  it('interpolates p90 between the closest ranks', async () => {
    const { quantile, summarize } = await load('lib/stats.mjs');
    const samples = Array.from({ length: 11 }, (_, i) => i * 10); // 0..100
    assert.equal(quantile(samples, 0.9), 90);
    assert.equal(quantile([1, 2], 0.9), 1.9);
    const s = summarize([3, 1, 2]);
    assert.deepEqual([s.n, s.median, s.min, s.max, s.mean], [3, 2, 1, 3, 2]);
  });
});

describe('benchmark fixture', () => {
  let fixture: any;
  let made: any;
  const [a, b] = [tempDir('bench-fixture-'), tempDir('bench-fixture-')];
  before(async () => {
    fixture = await load('fixture.mjs');
    made = fixture.makeFixture(a);
    fixture.makeFixture(b);
  });
  after(() => [a, b].forEach(removeDir));

  it('writes the same 10,000 files byte for byte on every run', () => {
    assert.equal(made.files, fixture.FIXTURE_FILES);
    const listing = manifest(a);
    assert.equal(listing.split('\n').length, fixture.FIXTURE_FILES);
    assert.equal(listing, manifest(b));
  });

  it('ignores exactly the files it reports as ignored, as git itself reads its .gitignore', () => {
    assert.equal(made.gitInit, true);
    const visible = spawnSync('git', ['ls-files', '--others', '--exclude-standard'], { cwd: a, encoding: 'utf8', maxBuffer: 64 << 20 });
    const visibleFiles = visible.stdout.split('\n').filter(Boolean);
    assert.equal(visibleFiles.length, made.files - made.ignored);
    assert.ok(visibleFiles.includes('keep.log'), 'the negated rule keeps keep.log visible');
    assert.ok(!visibleFiles.some((f) => f.startsWith('node_modules/')));
  });

  it('gives the named read targets their fixed sizes', () => {
    const { TARGETS } = fixture;
    assert.equal(statSync(join(a, TARGETS.smallFile)).size, TARGETS.smallFileBytes);
    assert.equal(statSync(join(a, TARGETS.mediumFile)).size, TARGETS.mediumFileBytes);
    assert.equal(readdirSync(join(a, TARGETS.largeDir)).length, TARGETS.largeDirFiles);
  });
});

describe('benchmark daemon processes', () => {
  // A stand-in daemon: forks a grandchild (as qwen serve forks `qwen --acp`), then prints its line.
  const script = `
    const { spawn } = require('node:child_process');
    const kid = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    console.log('grandchild ' + kid.pid);
    console.log('fake listening on http://127.0.0.1:1');
    setInterval(() => {}, 1000);
  `;

  it('reads the url from the listening line and stops the daemon with every process it forked', async () => {
    const { startDaemonProcess } = await load('lib/daemon-process.mjs');
    const { descendants, treeRss } = await load('lib/proctree.mjs');
    const proc = await startDaemonProcess({
      name: 'fake',
      command: process.execPath,
      args: ['-e', script],
      env: process.env,
      ready: /fake listening on (\S+)/,
    });
    assert.equal(proc.url, 'http://127.0.0.1:1');
    const grandchild = Number(/grandchild (\d+)/.exec(proc.stdout())![1]);
    assert.deepEqual(descendants(proc.pid), [grandchild]);
    assert.equal(isRunning(grandchild), true);
    const rss = treeRss(proc.pid);
    assert.equal(rss.procs.length, 2);
    assert.ok(rss.totalKiB > 0);
    await proc.stop();
    await proc.stop(); // idempotent
    assert.equal(isRunning(proc.pid), false);
    assert.equal(isRunning(grandchild), false);
  });

  it('fails with the daemon output when it exits before it is ready', async () => {
    const { startDaemonProcess } = await load('lib/daemon-process.mjs');
    await assert.rejects(
      startDaemonProcess({
        name: 'broken',
        command: process.execPath,
        args: ['-e', 'console.error("no config"); process.exit(3)'],
        env: process.env,
        ready: /listening on (\S+)/,
      }),
      /broken exited \(code 3\) before it was ready[\s\S]*no config/,
    );
  });
});

describe('interleaved sampling', () => {
  it('takes rounds × block samples per daemon on one kept-alive connection, alternating which goes first', async () => {
    const { sampleInterleaved } = await load('lib/sampling.mjs');
    const { keepAliveClient } = await load('lib/http-client.mjs');
    const hits: string[] = [];
    const sockets = new Map<string, Set<unknown>>();
    const serve = (tag: string) =>
      new Promise<Server>((resolve) => {
        const server = createServer((req, res) => {
          hits.push(tag);
          sockets.get(tag)!.add(req.socket);
          res.end('{}');
        });
        sockets.set(tag, new Set());
        server.listen(0, '127.0.0.1', () => resolve(server));
      });
    const servers = [await serve('A'), await serve('B')];
    const clients = servers.map((s) => keepAliveClient(`http://127.0.0.1:${(s.address() as AddressInfo).port}`));
    try {
      const out = await sampleInterleaved(
        [
          { name: 'A', client: clients[0] },
          { name: 'B', client: clients[1] },
        ],
        '/x',
        { warmup: 1, rounds: 3, block: 2 },
      );
      assert.equal(out.A.samples.length, 6);
      assert.equal(out.B.samples.length, 6);
      assert.deepEqual(out.A.statuses, { 200: 6 });
      // Warm-up A, B; then rounds A A B B | B B A A | A A B B.
      assert.equal(hits.join(''), 'AB' + 'AABB' + 'BBAA' + 'AABB');
      assert.equal(sockets.get('A')!.size, 1);
      assert.equal(clients[0].connections, 1);
    } finally {
      clients.forEach((c) => c.close());
      await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    }
  });
});

describe('cpu profile summary', () => {
  it('charges each sample interval to the sampled function and leaves idle time out of the shares', async () => {
    const { topSelfTime } = await load('lib/cpuprofile-top.mjs');
    const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 0, columnNumber: 0, scriptId: '0' });
    const profile = {
      nodes: [
        { id: 1, callFrame: frame('(root)', '') },
        { id: 2, callFrame: frame('walk', 'file:///x/dist/workspace/glob.js') },
        { id: 3, callFrame: frame('(idle)', '') },
        { id: 4, callFrame: frame('lstat', '') },
      ],
      samples: [2, 2, 4, 3],
      timeDeltas: [3000, 1000, 4000, 9000],
    };
    const summary = topSelfTime(profile);
    assert.equal(summary.busyMs, 8);
    assert.equal(summary.idleMs, 9);
    assert.deepEqual(
      summary.functions.map((r: any) => [r.key, r.ms, r.pct]),
      [
        ['walk  dist/workspace/glob.js:1', 4, 50],
        ['lstat  (native):1', 4, 50],
      ],
    );
    assert.deepEqual(summary.files.map((r: any) => r.key), ['dist/workspace/glob.js', '(native lstat)']);
  });
});

describe('bench wire: the bare WebSocket beside the gateway rows', () => {
  it('answers each message with a text of the length it asks for, in order, and stops its child', async () => {
    const { startWire } = await load('lib/wire.mjs');
    const wire = await startWire();
    try {
      assert.equal(isRunning(wire.pid), true);
      assert.equal(await wire.roundTrip(240, 1407), 1407);
      assert.equal(await wire.roundTrip(1307, 3), 3);
      const inFlight = [wire.roundTrip(10, 100), wire.roundTrip(10, 200), wire.roundTrip(2000, 300), wire.roundTrip(10, 400)];
      assert.deepEqual(await Promise.all(inFlight), [100, 200, 300, 400]);
    } finally {
      await wire.close();
    }
    assert.equal(isRunning(wire.pid), false);
  });
});
