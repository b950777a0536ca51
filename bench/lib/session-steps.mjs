// The measured steps of the session benchmark, each the same request both daemons get, with the
// body shapes of shared/reference/qwen-serve (b-session-create, c-sse-text-turn) and the metric
// definitions of BASELINE.md. Every step checks the answer, so a number is never a timed error.
import { openEventStream } from './sse-stream.mjs';

/** /health is polled this often from the moment the daemon says it listens (BASELINE.md: every 20 ms). */
export const HEALTH_POLL_MS = 10;
/** `/health?deep=1` poll interval while the peer boots its workspace runtime. */
export const DEEP_POLL_MS = 20;
/** Give up on a daemon that does not come up (the peer needs ~1.7 s to deep health). */
export const BOOT_TIMEOUT_MS = 60_000;

/** The session body of BASELINE.md: every session a new thread. */
export const SESSION_BODY = { sessionScope: 'thread' };

export const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const msSince = (start, end = process.hrtime.bigint()) => Number(end - start) / 1e6;

function text(res) {
  return res.body.toString('utf8');
}

/**
 * Polls `GET /health` every HEALTH_POLL_MS and returns the ms from `startedAt` (spawn) to the
 * end of the first 200. The port is known only from the listening line (`--port 0`), so polling
 * starts there; BASELINE.md's "listening" and "/health 200" differ by about 4 ms.
 */
export async function timeToHealth(client, startedAt, { path = '/health', intervalMs = HEALTH_POLL_MS } = {}) {
  const deadline = Date.now() + BOOT_TIMEOUT_MS;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const res = await client.get(path);
      if (res.status === 200) return msSince(startedAt);
      last = `${res.status} ${text(res).slice(0, 200)}`;
    } catch (error) {
      last = error.message;
    }
    await pause(intervalMs);
  }
  throw new Error(`${path} did not answer 200 within ${BOOT_TIMEOUT_MS} ms (last: ${last})`);
}

/** `GET /health?deep=1` until 200: the peer's workspace runtime and `qwen --acp` child are up. */
export function timeToDeepHealth(client, startedAt) {
  return timeToHealth(client, startedAt, { path: '/health?deep=1', intervalMs: DEEP_POLL_MS });
}

/** `POST /session` `{"sessionScope":"thread"}` → `{ms, sessionId}`; anything but a 200/201 with an id throws. */
export async function createSession(client) {
  const res = await client.post('/session', SESSION_BODY);
  const body = res.status === 200 || res.status === 201 ? JSON.parse(text(res)) : null;
  if (!body || typeof body.sessionId !== 'string') {
    throw new Error(`POST /session -> ${res.status}: ${text(res).slice(0, 300)}`);
  }
  return { ms: res.ms, sessionId: body.sessionId };
}

/** The session's event stream, open (headers received) before any prompt is sent. */
export function subscribe(baseUrl, sessionId) {
  return openEventStream(baseUrl, `/session/${encodeURIComponent(sessionId)}/events`);
}

/** Frames carry the whole envelope (`{id, type, data, promptId?}`); the prompt id is on either level. */
function promptIdOf(frame) {
  const env = frame.data;
  return env && typeof env === 'object' ? (env.promptId ?? env.data?.promptId) : undefined;
}

function agentTextOf(frame) {
  const update = frame.data?.data?.update;
  return frame.event === 'session_update' && update?.sessionUpdate === 'agent_message_chunk' ? (update.content?.text ?? '') : '';
}

/**
 * One prompt on an already open stream: `POST /session/:id/prompt` (202 expected), then the
 * prompt's `turn_complete`. Returns `{admitMs, turnMs, reply}`: admission is the POST's round
 * trip; the turn runs from sending the POST to the arrival of `turn_complete` (which may come
 * before the 202 has been read — the stream keeps arrival times). `reply` is the agent text seen
 * for that prompt, so both daemons can be shown to have done the same work; `promptId` the
 * daemon's id for the prompt, for other streams to wait on.
 */
export async function promptTurn(client, stream, sessionId, promptText) {
  const from = stream.frames.length;
  const started = process.hrtime.bigint();
  const res = await client.post(`/session/${encodeURIComponent(sessionId)}/prompt`, { prompt: [{ type: 'text', text: promptText }] });
  if (res.status !== 202) throw new Error(`POST /session/:id/prompt -> ${res.status}: ${text(res).slice(0, 300)}`);
  const { promptId } = JSON.parse(text(res));
  const end = await stream.waitFor(
    (f) => (f.event === 'turn_complete' || f.event === 'turn_error') && promptIdOf(f) === promptId,
  );
  if (end.event === 'turn_error') throw new Error(`turn_error for prompt ${promptId}: ${JSON.stringify(end.data).slice(0, 300)}`);
  const reply = stream.frames
    .slice(from)
    .filter((f) => f.at <= end.at && promptIdOf(f) === promptId)
    .map(agentTextOf)
    .join('');
  return { admitMs: res.ms, turnMs: msSince(started, end.at), reply, promptId };
}
