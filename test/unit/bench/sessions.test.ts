// The session benchmark's own machinery: the event-stream reader, the measured steps against a
// real daemon, the ratio/target rules and the small workspace. No timing is asserted (benchmarks
// are not tests); these check that each step measures the request it names and reads what the
// daemon really sent.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_REPLY } from '../../../src/devtools/scripted-model/steps.js';
import { startStack, type Stack } from '../../support/stack.js';
import { removeDir, tempDir } from '../../support/tmp.js';

// Plain .mjs loaded by URL, as in harness.test.ts: no declarations for tsc to ask for.
const load = (path: string): Promise<any> => import(new URL(`../../../bench/${path}`, import.meta.url).href);

describe('event-stream parser of the benchmarks', () => {
  const parse = async (chunks: string[]) => {
    const { sseParser } = await load('lib/sse-stream.mjs');
    const frames: any[] = [];
    const parser = sseParser((f: any) => frames.push(f));
    for (const c of chunks) parser.push(c);
    return frames;
  };

  it('assembles frames split at any byte, with LF, CRLF and a CR that ends one chunk', async () => {
    const wire = 'id: 1\nevent: session_update\ndata: {"a":1}\n\nid: 2\r\nevent: turn_complete\r\ndata: {"b":2}\r\n\r\n';
    const whole = await parse([wire]);
    for (let cut = 1; cut < wire.length; cut += 1) {
      assert.deepEqual(await parse([wire.slice(0, cut), wire.slice(cut)]), whole, `cut at ${cut}`);
    }
    assert.deepEqual(
      whole.map((f) => [f.id, f.event, f.data]),
      [
        ['1', 'session_update', '{"a":1}'],
        ['2', 'turn_complete', '{"b":2}'],
      ],
    );
  });

  it('joins data lines with newlines, keeps comments with their frame and skips blocks with neither data nor event', async () => {
    const frames = await parse(['retry: 3000\n\n: heartbeat\n\n', ': note\ndata: one\ndata: two\n\n']);
    assert.equal(frames.length, 1);
    assert.equal(frames[0].data, 'one\ntwo');
    assert.deepEqual(frames[0].comments, ['note']);
  });
});

describe('event stream reader', () => {
  let server: Server;
  let url: string;
  let response: ServerResponse | undefined;
  before(async () => {
    server = createServer((req, res) => {
      if (req.url === '/missing') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"nope"}');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('retry: 3000\n\nid: 1\nevent: first\ndata: {"promptId":"p1"}\n\n');
      response = res;
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('hands out a frame that arrived before it was awaited, one that arrives later, and fails when the stream ends', async () => {
    const { openEventStream } = await load('lib/sse-stream.mjs');
    const stream = await openEventStream(url, '/events');
    try {
      assert.equal(stream.status, 200);
      const early = await stream.waitFor((f: any) => f.event === 'first');
      assert.equal(early.data.promptId, 'p1');
      assert.equal(typeof early.at, 'bigint');
      const later = stream.waitFor((f: any) => f.event === 'second');
      response!.write('id: 2\nevent: second\ndata: not json\n\n');
      assert.equal((await later).data, 'not json');
      const never = stream.waitFor((f: any) => f.event === 'third');
      response!.end();
      await assert.rejects(never, /event stream ended/);
    } finally {
      stream.close();
    }
  });

  it('refuses a stream the daemon answers with an error status, saying which', async () => {
    const { openEventStream } = await load('lib/sse-stream.mjs');
    await assert.rejects(openEventStream(url, '/missing'), /404/);
  });
});

describe('measured session steps against a real daemon', () => {
  let stack: Stack;
  let steps: any;
  let client: any;
  before(async () => {
    stack = await startStack();
    steps = await load('lib/session-steps.mjs');
    client = (await load('lib/http-client.mjs')).keepAliveClient(stack.daemon.url);
  });
  after(async () => {
    client?.close();
    await stack?.close();
  });

  it('reaches /health, creates thread sessions and runs turns that end in their own turn_complete with the model reply', async () => {
    const ms = await steps.timeToHealth(client, process.hrtime.bigint());
    assert.ok(Number.isFinite(ms));
    const a = await steps.createSession(client);
    const b = await steps.createSession(client);
    assert.notEqual(a.sessionId, b.sessionId, 'sessionScope thread makes a new session each time');
    const stream = await steps.subscribe(stack.daemon.url, a.sessionId);
    try {
      const first = await steps.promptTurn(client, stream, a.sessionId, 'Say hello');
      const second = await steps.promptTurn(client, stream, a.sessionId, 'Say hello');
      assert.equal(first.reply, DEFAULT_REPLY.text);
      assert.equal(second.reply, DEFAULT_REPLY.text);
      const completes = stream.frames.filter((f: any) => f.event === 'turn_complete');
      assert.equal(completes.length, 2);
      assert.notEqual(completes[0].data.promptId, completes[1].data.promptId);
    } finally {
      stream.close();
    }
    assert.equal(stack.model.completions().length, 2, 'one model request per turn');
  });

  it('turns a refused prompt into an error instead of a number', async () => {
    const { sessionId } = await steps.createSession(client);
    const stream = await steps.subscribe(stack.daemon.url, sessionId);
    try {
      await assert.rejects(steps.promptTurn(client, stream, 'no-such-session', 'Say hello'), /-> 404/);
    } finally {
      stream.close();
    }
  });
});

describe('session benchmark ratios and targets', () => {
  it('divides peer by Berth for times and Berth by peer for memory, and holds each to its direction', async () => {
    const { ratioOf, meets } = await load('lib/sessions-report.mjs');
    assert.equal(ratioOf('ms', 100, 5), 20);
    assert.equal(ratioOf('MiB', 400, 80), 0.2);
    assert.equal(meets({ speedup: 20 }, 20), true);
    assert.equal(meets({ speedup: 20 }, 19.9), false);
    assert.equal(meets({ share: 0.2 }, 0.19), true);
    assert.equal(meets({ share: 0.2 }, 0.21), false);
    assert.equal(meets(undefined, 3), null);
    assert.equal(meets({ speedup: 4 }, NaN), null);
  });

  it('names a process by its script and first argument, without the paths of the machine it ran on', async () => {
    const { processName } = await load('lib/sessions-report.mjs');
    assert.equal(processName('/usr/bin/node /somewhere/cli-entry.js serve --hostname'), 'cli-entry.js serve');
    assert.equal(processName('/usr/bin/node --max-old-space-size=12052 --expose-gc cli.js'), 'cli.js');
  });
});

describe('session benchmark workspace', () => {
  const dir = tempDir('bench-small-ws-');
  after(() => removeDir(dir));

  it('is a git repository whose .gitignore hides the log and the build folder, like the reference fixture', async () => {
    const { makeSmallWorkspace } = await load('lib/small-workspace.mjs');
    assert.equal(makeSmallWorkspace(dir).gitInit, true);
    const visible = spawnSync('git', ['ls-files', '--others', '--exclude-standard'], { cwd: dir, encoding: 'utf8' });
    const files = visible.stdout.split('\n').filter(Boolean).sort();
    assert.deepEqual(files, ['.gitignore', 'README.md', 'big.txt', 'blob.bin', 'crlf.txt', 'src/index.ts', 'src/nested/deep.txt']);
  });
});
