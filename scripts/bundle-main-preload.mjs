// Loaded with --import into the `berth serve` scripts/bundle-main.mjs starts at build time: when the
// daemon says it listens, asks it what a client that started it asks first (GET /health, then
// POST /session), writes the code cache of main.body.cjs (compiled by then with the functions a start
// and those first requests call) to BERTH_BUILD_CODE_CACHE, and exits.
import { request } from 'node:http';
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
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, ...rest) => {
  const listening = cacheFile ? /^berth listening on (http:\/\/\S+)/.exec(String(chunk)) : null;
  if (listening) void writeCacheAfterFirstRequests(listening[1]);
  return write(chunk, ...rest);
};

async function writeCacheAfterFirstRequests(baseUrl) {
  try {
    for (const r of FIRST_REQUESTS) await send(baseUrl, r);
  } catch (err) {
    // A cache of the start alone still spares every daemon the start's compiling.
    process.stderr.write(`bundle: main.body.cjs's code cache made without the first requests: ${err.message}\n`);
  }
  const { mainBodyScript } = await import(new URL('../dist/bundle/main.js', import.meta.url).href);
  writeFileSync(cacheFile, mainBodyScript.createCachedData());
  process.exit(0);
}

/** One request; resolves once its whole answer is read, rejects on a status other than 2xx. */
function send(baseUrl, { method, path, body }) {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, baseUrl), { method, headers: payload ? { 'content-type': 'application/json' } : {} }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode >= 200 && res.statusCode < 300 ? resolve() : reject(new Error(`${method} ${path} -> ${res.statusCode}`))));
      res.on('error', reject);
    });
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error(`${method} ${path} unanswered after ${REQUEST_TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}
