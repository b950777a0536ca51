// A minimal HTTP/1.1 client on one keep-alive connection per daemon, timed with hrtime.
// node:http rather than fetch(): less client-side work per request, so the client's own cost
// (which both daemons pay alike on this shared 2-core machine) stays small and steady.
import http from 'node:http';

/** Idle time after which the client drops its socket; below both daemons' 5 s keep-alive timeout. */
const CLIENT_IDLE_MS = 4_000;

/**
 * One keep-alive connection to `baseUrl`. `get(path)` and `post(path, body)` resolve to
 * `{status, ms, bytes, body}` where `ms` runs from sending the request to the last body byte.
 * `connections` counts the TCP connections opened, to show the samples really reused one.
 */
export function keepAliveClient(baseUrl) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1, keepAliveMsecs: 1_000, timeout: CLIENT_IDLE_MS });
  const target = new URL(baseUrl);
  let connections = 0;
  const countSocket = (socket) => {
    if (!socket.__benchCounted) {
      socket.__benchCounted = true;
      connections += 1;
    }
  };

  /** Sends one request; `body` (an object) goes out as JSON. Timed from sending to the last body byte. */
  function send(method, path, body, headers = {}) {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const sentHeaders = { accept: 'application/json', ...headers };
    if (payload) {
      sentHeaders['content-type'] = 'application/json';
      sentHeaders['content-length'] = String(payload.length);
    }
    return new Promise((resolve, reject) => {
      const started = process.hrtime.bigint();
      const req = http.request(
        { agent, host: target.hostname, port: target.port, path, method, headers: sentHeaders },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => {
            const ms = Number(process.hrtime.bigint() - started) / 1e6;
            const buf = Buffer.concat(chunks);
            resolve({ status: res.statusCode, ms, bytes: buf.length, body: buf });
          });
          res.on('error', reject);
        },
      );
      req.on('socket', countSocket);
      req.on('error', reject);
      req.end(payload);
    });
  }

  const get = (path, headers = {}) => send('GET', path, undefined, headers);

  return {
    get,
    /** POST `body` as JSON: `{status, ms, bytes, body}` like `get`. */
    post: (path, body, headers = {}) => send('POST', path, body, headers),
    /** DELETE `path`: `{status, ms, bytes, body}` like `get`. */
    delete: (path, headers = {}) => send('DELETE', path, undefined, headers),
    /** GET and parse JSON; throws with the body when the status is not 2xx. */
    async json(path) {
      const r = await get(path);
      const text = r.body.toString('utf8');
      if (r.status < 200 || r.status > 299) throw new Error(`GET ${path} -> ${r.status}: ${text.slice(0, 500)}`);
      return JSON.parse(text);
    },
    get connections() {
      return connections;
    },
    close: () => agent.destroy(),
  };
}

/** Polls `url` until it answers 200 or `timeoutMs` passes (used for the peer's deep health). */
export async function waitFor200(url, { timeoutMs = 60_000, intervalMs = 50 } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url);
      last = `${res.status} ${await res.text()}`;
      if (res.status === 200) return;
    } catch (error) {
      last = String(error);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms (last: ${last.slice(0, 300)})`);
}
