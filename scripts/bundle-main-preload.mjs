// Loaded with --import into the `berth serve` scripts/bundle-main.mjs starts at build time: when the
// daemon says it listens, asks it what a client that started it asks first (GET /health, then
// POST /session, then one prompt on that session, watched to its turn_complete), writes the code
// cache of main.body.cjs (compiled by then with the functions a start and those first requests call)
// to BERTH_BUILD_CODE_CACHE, and exits.
import { get, request } from 'node:http';
import { writeFileSync } from 'node:fs';

/**
 * The first requests of a client, in order. Why: V8 compiles a function on its first call, and a function
 * compiled after the cache is written is compiled again by every daemon that calls it. Cached at the
 * listening line only, the first POST /session compiled ~120 functions of the session path (a few ms of
 * CPU) while its client waited; cached after one, it finds them compiled. The session is the build's
 * own, in the scratch home and workspace bundle-main.mjs removes.
 */
const FIRST_REQUESTS = [
  { method: 'GET', path: '/health' },
  { method: 'POST', path: '/session', body: { sessionScope: 'thread' } },
];

/** A first request still unanswered by then is given up, so the cache is written well before bundle-main.mjs's 60 s limit. */
const REQUEST_TIMEOUT_MS = 10_000;

const cacheFile = process.env.BERTH_BUILD_CODE_CACHE;

/**
 * The turn's model: the project's scripted one, in this process, named to the daemon before its
 * configuration is read (an --import module runs first). Its key is the build's own and goes nowhere.
 */
if (cacheFile) {
  const { startScriptedModel } = await import(new URL('../dist/devtools/scripted-model/server.js', import.meta.url).href);
  const model = await startScriptedModel({ port: 0, host: '127.0.0.1', record: false, apiKey: 'build-cache' });
  Object.assign(process.env, { OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'build-cache', OPENAI_MODEL: 'build-cache' });
}
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, ...rest) => {
  const listening = cacheFile ? /^berth listening on (http:\/\/\S+)/.exec(String(chunk)) : null;
  if (listening) void writeCacheAfterFirstRequests(listening[1]);
  return write(chunk, ...rest);
};

async function writeCacheAfterFirstRequests(baseUrl) {
  try {
    let sessionId;
    for (const r of FIRST_REQUESTS) sessionId = JSON.parse(await send(baseUrl, r) || '{}').sessionId ?? sessionId;
    await firstTurn(baseUrl, sessionId);
  } catch (err) {
    // A cache of the start alone still spares every daemon the start's compiling.
    process.stderr.write(`bundle: main.body.cjs's code cache made without the first requests: ${err.message}\n`);
  }
  const { mainBodyScript } = await import(new URL('../dist/bundle/main.js', import.meta.url).href);
  writeFileSync(cacheFile, mainBodyScript.createCachedData());
  process.exit(0);
}

/**
 * A session's first turn as a client sees it: its event stream open, the prompt sent, the stream read
 * to the turn's end. Cached after one turn, the first turns of a new daemon find the turn path's
 * functions compiled, as the first POST /session does its own.
 */
function firstTurn(baseUrl, sessionId) {
  const events = new URL(`/session/${encodeURIComponent(sessionId)}/events`, baseUrl);
  return new Promise((resolve, reject) => {
    const stream = get(events, { headers: { accept: 'text/event-stream' } }, (res) => {
      let seen = '';
      res.setEncoding('utf8');
      res.on('data', (text) => {
        seen += text;
        if (!/event: turn_(complete|error)\n/.test(seen)) return;
        stream.destroy();
        resolve();
      });
      send(baseUrl, { method: 'POST', path: `/session/${encodeURIComponent(sessionId)}/prompt`, body: { prompt: [{ type: 'text', text: 'hello' }] } }).catch(reject);
    });
    stream.setTimeout(REQUEST_TIMEOUT_MS, () => stream.destroy(new Error(`no turn_complete within ${REQUEST_TIMEOUT_MS} ms`)));
    stream.on('error', reject);
  });
}

/** One request; resolves with its whole answer once read, rejects on a status other than 2xx. */
function send(baseUrl, { method, path, body }) {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, baseUrl), { method, headers: payload ? { 'content-type': 'application/json' } : {} }, (res) => {
      let answer = '';
      res.setEncoding('utf8');
      res.on('data', (text) => (answer += text));
      res.on('end', () => (res.statusCode >= 200 && res.statusCode < 300 ? resolve(answer) : reject(new Error(`${method} ${path} -> ${res.statusCode}`))));
      res.on('error', reject);
    });
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error(`${method} ${path} unanswered after ${REQUEST_TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}
