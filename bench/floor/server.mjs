#!/usr/bin/env node
// The floor daemon: the benchmarks' measure of "as fast as these routes can be in Node". A plain
// node:http server answering the measured routes with the most direct implementation that does
// the same work — no framework, no validation, no store, no security checks, no transcript. A
// Berth row is read against it: Berth's time ÷ the floor's is what Berth's own machinery costs.
//
//   node bench/floor/server.mjs --workspace <dir>   (model from OPENAI_BASE_URL / OPENAI_MODEL)
//
// Prints `floor listening on http://127.0.0.1:<port>` once it listens.
import { randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join, relative, resolve } from 'node:path';
import ignore from 'ignore';
import picomatch from 'picomatch';

const workspace = resolve(process.argv[process.argv.indexOf('--workspace') + 1] ?? '.');
const modelUrl = (process.env.OPENAI_BASE_URL ?? '').replace(/\/+$/, '');
const model = process.env.OPENAI_MODEL ?? 'mock-model';
const apiKey = process.env.OPENAI_API_KEY ?? '';

/** sessionId → {subscribers: Set<ServerResponse>, nextId, history: [{role, content}]} */
const sessions = new Map();

function send(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function bodyOf(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
}

function publish(session, type, promptId, data) {
  const id = session.nextId++;
  const frame = `id: ${id}\nevent: ${type}\ndata: ${JSON.stringify({ id, type, promptId, data })}\n\n`;
  for (const res of session.subscribers) res.write(frame);
}

/** One turn: the model's streamed answer, each delta an agent_message_chunk, then turn_complete. */
async function runTurn(sessionId, session, promptId, text) {
  session.history.push({ role: 'user', content: text });
  const res = await fetch(`${modelUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    body: JSON.stringify({ model, messages: session.history, stream: true }),
  });
  let answer = '';
  let pending = '';
  const decoder = new TextDecoder();
  for await (const chunk of res.body) {
    pending += decoder.decode(chunk, { stream: true });
    let cut;
    while ((cut = pending.indexOf('\n')) !== -1) {
      const line = pending.slice(0, cut).trim();
      pending = pending.slice(cut + 1);
      if (!line.startsWith('data:') || line === 'data: [DONE]') continue;
      const delta = JSON.parse(line.slice(5)).choices?.[0]?.delta?.content;
      if (!delta) continue;
      answer += delta;
      publish(session, 'session_update', promptId, {
        sessionId,
        promptId,
        update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: delta } },
      });
    }
  }
  session.history.push({ role: 'assistant', content: answer });
  publish(session, 'turn_complete', promptId, { sessionId, promptId, stopReason: 'end_turn' });
}

/** The root .gitignore only, applied to every path: the naive reading of ignore rules. */
async function rootIgnore() {
  const rules = ignore().add('.git');
  try {
    rules.add(await readFile(join(workspace, '.gitignore'), 'utf8'));
  } catch {}
  return rules;
}

async function walk(dir, rules, match, out) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = relative(workspace, join(dir, entry.name));
    if (rules.ignores(entry.isDirectory() ? `${path}/` : path)) continue;
    if (entry.isDirectory()) await walk(join(dir, entry.name), rules, match, out);
    else if (match(path)) out.push(path);
  }
  return out;
}

/** The root rules for GET /list, read on its first request. */
let listRules;

const routes = {
  'GET /health': (_req, res) => send(res, 200, { status: 'ok' }),
  'GET /file': async (_req, res, url) => {
    const path = url.searchParams.get('path');
    send(res, 200, { path, content: await readFile(join(workspace, path), 'utf8'), truncated: false });
  },
  'GET /list': async (_req, res, url) => {
    // Berth hides what the ignore rules hide, so the floor does too, or its answer would be
    // smaller than the one it is compared with. The root rules are read once and kept (an
    // edited .gitignore is missed): the least the hiding can cost, so still a floor.
    const dir = url.searchParams.get('path') ?? '.';
    listRules ??= rootIgnore();
    const [entries, rules] = await Promise.all([readdir(join(workspace, dir), { withFileTypes: true }), listRules]);
    const shown = entries.filter((e) => {
      const path = relative(workspace, join(workspace, dir, e.name));
      return !rules.ignores(e.isDirectory() ? `${path}/` : path);
    });
    send(res, 200, { entries: shown.map((e) => ({ name: e.name, kind: e.isDirectory() ? 'directory' : 'file' })), truncated: false });
  },
  'GET /glob': async (_req, res, url) => {
    const matches = await walk(workspace, await rootIgnore(), picomatch(url.searchParams.get('pattern'), { dot: true }), []);
    send(res, 200, { matches, count: matches.length, truncated: false });
  },
  'POST /session': async (req, res) => {
    await bodyOf(req);
    const sessionId = randomUUID();
    sessions.set(sessionId, { subscribers: new Set(), nextId: 1, history: [] });
    send(res, 200, { sessionId, workspaceCwd: workspace });
  },
  'GET /session/events': (req, res, _url, sessionId) => {
    const session = sessions.get(sessionId);
    if (!session) return send(res, 404, { error: 'no such session' });
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    session.subscribers.add(res);
    req.on('close', () => session.subscribers.delete(res));
  },
  'POST /session/prompt': async (req, res, _url, sessionId) => {
    const session = sessions.get(sessionId);
    if (!session) return send(res, 404, { error: 'no such session' });
    const { prompt } = await bodyOf(req);
    const promptId = randomUUID();
    send(res, 202, { promptId });
    const text = prompt.map((b) => b.text ?? '').join('');
    runTurn(sessionId, session, promptId, text).catch((error) => publish(session, 'turn_error', promptId, { promptId, error: String(error) }));
  },
};

const server = createServer(async (req, res) => {
  const url = new URL(req.url, 'http://floor');
  // /session/<id>/<action> is routed as "/session/<action>" with the id beside it.
  const parts = url.pathname.split('/');
  const sessionId = parts[1] === 'session' && parts.length === 4 ? decodeURIComponent(parts[2]) : undefined;
  const key = `${req.method} ${sessionId ? `/session/${parts[3]}` : url.pathname}`;
  const route = routes[key];
  try {
    if (route) await route(req, res, url, sessionId);
    else send(res, 404, { error: `no route ${key}` });
  } catch (error) {
    if (!res.headersSent) send(res, 500, { error: String(error) });
  }
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(`floor listening on http://127.0.0.1:${server.address().port}`));
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => process.exit(0));
