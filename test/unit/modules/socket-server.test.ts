import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MODULE_SOCKET_PATH_MAX_BYTES } from '../../../src/modules/limits.js';
import { MODULE_MOST_LINE } from '../../../src/protocol/limits.js';
import { silentLogger } from '../../../src/log.js';
import { exchangeLine, listenModuleSocket, socketPlace, type ModuleSocket } from '../../../src/modules/index.js';
import { removeDir, tempDir } from '../../support/tmp.js';

/** Stands in for the messaging core: echoes the line it was given, so the tests see exactly what was read. */
const echo = async (line: Buffer) => ({ ok: true, text: `read ${line.length} bytes: ${line.toString('utf8').slice(0, 40)}` });

const connect = (path: string) =>
  new Promise<Socket>((resolve, reject) => {
    const s = createConnection(path);
    s.once('connect', () => resolve(s));
    s.once('error', reject);
  });

/** Everything the server writes to `socket` until it closes the connection. */
const readAll = (socket: Socket) =>
  new Promise<string>((resolve) => {
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(text));
  });

describe('the module socket server: one line in, one line out, bounded (seed 004)', () => {
  let home: string;
  let server: ModuleSocket;
  before(async () => {
    home = tempDir('berth-sock-');
    server = await listenModuleSocket({ place: socketPlace(home, 'ws1'), log: silentLogger(), answer: echo, readTimeoutMs: 100, maxConnections: 3 });
  });
  after(async () => {
    await server.close();
    removeDir(home);
  });

  it('answers the line up to the first newline and closes; what follows it is never read', async () => {
    const raw = await exchangeLine(server.path, 'first\nsecond\n');
    assert.equal(raw, JSON.stringify({ ok: true, text: 'read 5 bytes: first' }) + '\n');
  });

  it('answers a line ended by the peer closing its side instead of a newline', async () => {
    assert.match(await exchangeLine(server.path, 'no newline'), /read 10 bytes: no newline/);
  });

  it('answers a silent peer after the read timeout and closes the connection', async () => {
    const socket = await connect(server.path);
    const answer = JSON.parse(await readAll(socket));
    assert.equal(answer.ok, false);
    assert.match(answer.text, /No whole question arrived within 100 ms/);
  });

  it('stops reading an endless line past MOST_LINE bytes and answers without parsing it', async () => {
    const socket = await connect(server.path);
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    let written = 0;
    const pump = () => {
      while (!socket.destroyed && written <= 2 * MODULE_MOST_LINE && socket.write(chunk)) written += chunk.length;
      if (!socket.destroyed && written <= 2 * MODULE_MOST_LINE) socket.once('drain', pump);
    };
    const answer = readAll(socket);
    pump();
    const parsed = JSON.parse((await answer).split('\n')[0]!);
    assert.equal(parsed.ok, false);
    assert.equal(parsed.code, 'malformed');
    assert.match(parsed.text, /longer than 262144 bytes, so it was not read/);
  });

  it('holds at most maxConnections peers; one more is closed unanswered while they wait', async () => {
    const held = await Promise.all([1, 2, 3].map(() => connect(server.path)));
    const extra = await connect(server.path);
    assert.equal(await readAll(extra), '', 'the extra connection got no answer');
    for (const s of held) s.destroy();
    await new Promise((r) => setImmediate(r));
    assert.match(await exchangeLine(server.path, 'again\n'), /read 5 bytes/);
  });

  it('makes the socket 0600 inside a 0700 folder', () => {
    assert.equal(statSync(server.path).mode & 0o777, 0o600);
    assert.equal(statSync(join(home, 'sockets')).mode & 0o777, 0o700);
  });
});

describe('module socket placement', () => {
  let home: string;
  before(() => {
    home = tempDir('berth-sock-');
  });
  after(() => removeDir(home));

  it('replaces a stale socket file, and removes its own on close', async () => {
    const place = socketPlace(home, 'stale');
    const first = await listenModuleSocket({ place, log: silentLogger(), answer: echo });
    await first.close();
    assert.equal(existsSync(place.path), false);
    // A crash leaves the file behind: a listener killed with SIGKILL never unlinks it.
    const crashed = spawn(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(place.path)}, () => console.log('up'))`]);
    await new Promise((resolve, reject) => {
      crashed.stdout.once('data', resolve);
      crashed.once('exit', () => reject(new Error('the stand-in listener exited before listening')));
    });
    crashed.kill('SIGKILL');
    await new Promise((r) => crashed.once('exit', r));
    assert.ok(statSync(place.path).isSocket(), 'a stale socket file is left');
    const revived = await listenModuleSocket({ place, log: silentLogger(), answer: echo });
    assert.match(await exchangeLine(place.path, 'hi\n'), /read 2 bytes/);
    await assert.rejects(listenModuleSocket({ place, log: silentLogger(), answer: echo }), /another process answers/);
    await revived.close();
    assert.equal(existsSync(place.path), false);
  });

  it('never replaces a file that is not a socket', async () => {
    const place = socketPlace(home, 'file');
    await listenModuleSocket({ place, log: silentLogger(), answer: echo }).then((s) => s.close());
    writeFileSync(place.path, 'not a socket');
    await assert.rejects(listenModuleSocket({ place, log: silentLogger(), answer: echo }), /is not a socket/);
  });

  it('falls back to a short folder under the temp dir when the home path is too long', () => {
    const long = join(home, 'x'.repeat(120));
    const place = socketPlace(long, '0123456789abcdef');
    assert.equal(place.fallback, true);
    assert.ok(Buffer.byteLength(place.path) <= MODULE_SOCKET_PATH_MAX_BYTES);
    assert.equal(socketPlace(long, '0123456789abcdef').path, place.path, 'the same home always gets the same place');
    assert.equal(socketPlace(home, '0123456789abcdef').fallback, false);
  });
});

describe('a silent module peer holds its slot for the documented read timeout, not twice it', () => {
  it('once the read timeout has passed, the slot a silent peer took serves the next peer', async () => {
    const home = tempDir('berth-sock-');
    const readTimeoutMs = 400;
    const server = await listenModuleSocket({ place: socketPlace(home, 'ws1'), log: silentLogger(), answer: echo, readTimeoutMs, maxConnections: 1 });
    // allowHalfOpen: the peer never closes its own side, as a stuck or hostile tab would not.
    const silent = createConnection({ path: server.path, allowHalfOpen: true });
    silent.on('error', () => undefined);
    try {
      await new Promise((r) => silent.once('connect', r));
      await new Promise((r) => setTimeout(r, readTimeoutMs + 150));
      const answer = await exchangeLine(server.path, 'hello\n').catch((err: Error) => `refused: ${err.message}`);
      assert.match(answer, /read 5 bytes: hello/);
    } finally {
      silent.destroy();
      await server.close();
      removeDir(home);
    }
  });
});
