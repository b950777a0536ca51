// The measured blocks of the cluster benchmark. Each takes `open()`, which gives a fresh client
// of the target under test (one daemon, or the first n nodes of a cluster, round robin: see
// cluster-nodes.mjs), and a plan; each returns `{latencyMs, rate, …}` for the report.
import { createSession, promptTurn } from './session-steps.mjs';

const PROMPT_TEXT = 'Say hello';

const msSince = (start, end = process.hrtime.bigint()) => Number(end - start) / 1e6;
/** hrtime (ms) → wall clock (ms since the epoch), to set a frame's arrival against the daemon's serverTimestamp. */
const wallOffsetMs = performance.timeOrigin + performance.now() - Number(process.hrtime.bigint()) / 1e6;
const wallMs = (at) => Number(at) / 1e6 + wallOffsetMs;
const sessionPath = (id, rest = '') => `/session/${encodeURIComponent(id)}${rest}`;

/** Closes sessions a block opened (not timed), so every block starts with the same live sessions. */
async function closeSessions(open, ids) {
  const client = open();
  try {
    for (const id of ids) {
      const res = await client.delete(sessionPath(id));
      if (res.status >= 300) throw new Error(`DELETE /session/:id -> ${res.status}: ${res.body.toString('utf8').slice(0, 200)}`);
    }
  } finally {
    client.close();
  }
}

/** `callers` clients each create `sessionsPerCaller` sessions one after the other. */
async function sessionsBlock(open, plan) {
  const clients = Array.from({ length: plan.callers }, () => open());
  const latencyMs = [];
  const ids = [];
  const started = process.hrtime.bigint();
  try {
    await Promise.all(
      clients.map(async (client) => {
        for (let i = 0; i < plan.sessionsPerCaller; i += 1) {
          const s = await createSession(client);
          latencyMs.push(s.ms);
          ids.push(s.sessionId);
        }
      }),
    );
  } finally {
    for (const c of clients) c.close();
  }
  const rate = ids.length / (msSince(started) / 1000);
  await closeSessions(open, ids);
  return { latencyMs, rate };
}

/** `promptSessions` sessions (created and subscribed untimed) take `promptsPerSession` prompts each, all at once. */
async function promptsBlock(open, plan) {
  const setup = open();
  const sessions = [];
  try {
    for (let i = 0; i < plan.promptSessions; i += 1) {
      const { sessionId } = await createSession(setup);
      sessions.push({ sessionId, stream: await setup.subscribe(sessionId), client: open() });
    }
    const latencyMs = [];
    const replies = new Set();
    const started = process.hrtime.bigint();
    await Promise.all(
      sessions.map(async ({ sessionId, stream, client }) => {
        for (let i = 0; i < plan.promptsPerSession; i += 1) {
          const t = await promptTurn(client, stream, sessionId, PROMPT_TEXT);
          latencyMs.push(t.turnMs);
          replies.add(t.reply);
        }
      }),
    );
    const rate = latencyMs.length / (msSince(started) / 1000);
    return { latencyMs, rate, replies: [...replies] };
  } finally {
    for (const s of sessions) {
      s.stream.close();
      s.client.close();
    }
    setup.close();
    await closeSessions(open, sessions.map((s) => s.sessionId));
  }
}

/**
 * One session, `subscribers` streams on it (spread over the nodes), `fanoutPrompts` prompts one
 * after the other (each to its turn_complete on the first stream). Delivered: every frame with an
 * event id that reached a stream from the first prompt on, until the last turn_complete reached
 * the last stream. A frame's delay: its arrival (wall clock) minus the owner's
 * `_meta.serverTimestamp` (whole ms).
 */
async function fanoutBlock(open, plan) {
  const client = open();
  const { sessionId } = await createSession(client);
  const streams = [];
  try {
    for (let i = 0; i < plan.subscribers; i += 1) streams.push(await client.subscribe(sessionId));
    const started = process.hrtime.bigint();
    let last;
    for (let i = 0; i < plan.fanoutPrompts; i += 1) last = await promptTurn(client, streams[0], sessionId, PROMPT_TEXT);
    const ends = await Promise.all(
      streams.map((s) => s.waitFor((f) => f.event === 'turn_complete' && (f.data?.promptId ?? f.data?.data?.promptId) === last.promptId)),
    );
    const end = ends.reduce((a, f) => (f.at > a ? f.at : a), started);
    const delayMs = [];
    let delivered = 0;
    for (const s of streams) {
      for (const f of s.frames) {
        if (f.at < started || f.at > end || typeof f.data?.id !== 'number') continue;
        delivered += 1;
        const stamp = f.data._meta?.serverTimestamp;
        if (typeof stamp === 'number') delayMs.push(Math.max(0, wallMs(f.at) - stamp));
      }
    }
    const rate = delivered / (msSince(started, end) / 1000);
    return { latencyMs: delayMs, rate, framesPerTurn: delivered / plan.subscribers / plan.fanoutPrompts };
  } finally {
    for (const s of streams) s.close();
    client.close();
    await closeSessions(open, [sessionId]);
  }
}

/**
 * The forwarding cost: one session created on node 0 (its owner), then `forwardRequests` pairs of
 * `GET /session/{id}/status`, one to the owner and one to node 1 (which forwards it over NATS),
 * alternating which goes first. `{owner: [ms], forwarded: [ms]}`.
 */
export async function forwardBlock(open, plan) {
  const client = open();
  const owner = client.on(0);
  const other = client.on(1);
  const { sessionId } = await createSession(owner);
  const samples = { owner: [], forwarded: [] };
  try {
    for (let i = 0; i < plan.forwardRequests; i += 1) {
      const pair = i % 2 === 0 ? [['owner', owner], ['forwarded', other]] : [['forwarded', other], ['owner', owner]];
      for (const [side, c] of pair) {
        const res = await c.get(sessionPath(sessionId, '/status'));
        if (res.status !== 200) throw new Error(`GET /session/:id/status (${side}) -> ${res.status}: ${res.body.toString('utf8').slice(0, 200)}`);
        samples[side].push(res.ms);
      }
    }
    return samples;
  } finally {
    client.close();
    await closeSessions(open, [sessionId]);
  }
}

export const PHASES = ['sessions', 'prompts', 'fanout'];
export const BLOCKS = { sessions: sessionsBlock, prompts: promptsBlock, fanout: fanoutBlock };
