import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { after, afterEach, beforeEach, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { createHttpFetch, type HttpFetch } from '../../../src/agents/models/http-fetch.js';
import { removeDir, tempDir } from '../../support/tmp.js';

// The model fetch's connection handling against small real servers on loopback:
// keep-alive reuse, https, redirects, encodings, bodies it refuses.

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

interface TestServer {
  readonly url: string;
  /** TCP connections accepted so far. */
  connections(): number;
  /** Resolves when a connection the server accepted has closed. */
  nextClose(): Promise<void>;
  close(): Promise<void>;
}

async function serve(handler: Handler, tls?: { key: Buffer; cert: Buffer }): Promise<TestServer> {
  const server = tls ? https.createServer(tls, handler) : http.createServer(handler);
  const sockets = new Set<Socket>();
  let closes: Array<() => void> = [];
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => {
      sockets.delete(s);
      for (const r of closes) r();
      closes = [];
    });
  });
  let accepted = 0;
  server.on(tls ? 'secureConnection' : 'connection', () => accepted++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    connections: () => accepted,
    nextClose: () => new Promise((r) => closes.push(r)),
    close: () =>
      new Promise((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

let http1: HttpFetch;
let servers: TestServer[] = [];
const started = async (handler: Handler, tls?: { key: Buffer; cert: Buffer }) => {
  const s = await serve(handler, tls);
  servers.push(s);
  return s;
};
beforeEach(() => {
  http1 = createHttpFetch();
});
afterEach(async () => {
  http1.close();
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

const ok: Handler = (req, res) => {
  req.resume();
  req.on('end', () => res.end(`${req.method} ${req.url}`));
};

describe('model fetch connections', () => {
  test('sequential requests reuse one keep-alive connection; concurrent ones open their own', async () => {
    const server = await started(ok);
    for (let i = 0; i < 3; i++) assert.equal(await (await http1.fetch(`${server.url}/seq/${i}`)).text(), `GET /seq/${i}`);
    assert.equal(server.connections(), 1);
    const both = await Promise.all([http1.fetch(`${server.url}/a`), http1.fetch(`${server.url}/b`)]);
    assert.deepEqual(await Promise.all(both.map((r) => r.text())), ['GET /a', 'GET /b']);
    assert.equal(server.connections(), 2);
  });

  test('close() closes the idle keep-alive connections it holds', async () => {
    const server = await started(ok);
    await (await http1.fetch(server.url)).text();
    const closed = server.nextClose();
    http1.close();
    await closed;
  });

  test('aborting before the response head destroys the request and the server sees the connection close', async () => {
    let arrived!: () => void;
    const requestArrived = new Promise<void>((r) => (arrived = r));
    const server = await started(() => arrived()); // never answers
    const abort = new AbortController();
    const pending = http1.fetch(server.url, { signal: abort.signal });
    await requestArrived;
    const closed = server.nextClose();
    abort.abort();
    await assert.rejects(pending, { name: 'AbortError' });
    await closed;
  });

  test('a redirect is returned to the caller, not followed', async () => {
    const server = await started((req, res) => {
      res.writeHead(307, { location: '/elsewhere' });
      res.end();
    });
    const res = await http1.fetch(`${server.url}/v1/chat/completions`, { method: 'POST', body: '{}' });
    assert.equal(res.status, 307);
    assert.equal(res.headers.get('location'), '/elsewhere');
    assert.equal(server.connections(), 1);
  });

  test('responses are asked for uncompressed, and a compressed one is refused whole', async () => {
    const seen: (string | undefined)[] = [];
    const server = await started((req, res) => {
      seen.push(req.headers['accept-encoding']);
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gzipSync('{"a":1}'));
    });
    await assert.rejects(http1.fetch(server.url), /gzip-encoded/);
    assert.deepEqual(seen, ['identity']);
  });

  test('a 204 answer has no body', async () => {
    const server = await started((req, res) => {
      res.writeHead(204);
      res.end();
    });
    const res = await http1.fetch(server.url, { method: 'DELETE' });
    assert.equal(res.status, 204);
    assert.equal(res.body, null);
  });

  test('a body that is not text or bytes is refused and nothing is sent', async () => {
    const server = await started(ok);
    const form = new FormData();
    form.set('file', 'x');
    await assert.rejects(http1.fetch(server.url, { method: 'POST', body: form }), TypeError);
    assert.equal(server.connections(), 0);
  });
});

describe('model fetch over https', () => {
  const dir = tempDir('berth-https-');
  after(() => removeDir(dir));

  /** A self-signed certificate for 127.0.0.1, made with the openssl command line (Node cannot issue one). */
  function selfSigned(): { key: Buffer; cert: Buffer } | undefined {
    try {
      execFileSync('openssl', [
        'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
        '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
        '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
      ], { stdio: 'ignore' });
    } catch {
      return undefined;
    }
    return { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) };
  }
  const tls = selfSigned();

  test('an https endpoint is reached over TLS with the trusted certificate and its connection reused', { skip: !tls && 'openssl is not installed' }, async () => {
    const server = await started(ok, tls);
    const trusting = createHttpFetch({ ca: tls!.cert });
    try {
      assert.equal(await (await trusting.fetch(`${server.url}/one`, { method: 'POST', body: '{}' })).text(), 'POST /one');
      assert.equal(await (await trusting.fetch(`${server.url}/two`)).text(), 'GET /two');
      assert.equal(server.connections(), 1);
    } finally {
      trusting.close();
    }
  });

  test('an https endpoint whose certificate is not trusted is refused', { skip: !tls && 'openssl is not installed' }, async () => {
    const server = await started(ok, tls);
    await assert.rejects(http1.fetch(server.url), (err: NodeJS.ErrnoException) => /SELF_SIGNED|self[- ]signed/i.test(`${err.code} ${err.message}`));
  });
});
