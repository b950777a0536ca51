import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../config/config.js';
import { newSessionId } from '../sessions/ids.js';

/** Where the daemon's own listener answers, and the owner's bearer when the daemon has one. */
export interface WarmUpTarget {
  readonly host: string;
  readonly port: number;
  readonly token: string | null;
}

/** What the warm-up's requests were answered with: a count per status, `failed` for a request that got no answer (the last one sent). */
export interface WarmUpReport {
  readonly requests: number;
  readonly statuses: Readonly<Record<string, number>>;
  /** From the first request to the last answer. */
  readonly ms: number;
}

/** The status counted for a request that got no answer. */
const FAILED = 'failed';
/** A warm-up request that takes longer than this is given up (a daemon's answers take well under a millisecond). */
const REQUEST_TIMEOUT_MS = 5_000;

/** The body of every warm-up prompt: valid, so the request gets as far as the session lookup. */
const PROMPT_BODY = JSON.stringify({ prompt: [{ type: 'text', text: 'warm-up' }] });

/**
 * Sends the daemon's own listener, over one keep-alive loopback connection, `rounds` rounds of
 * `GET /health` and `POST /session/<new id>/prompt`. Why: in its first second the daemon runs its
 * request path cold (Node's HTTP parser and body stream, fastify's routing and hooks, the security
 * checks, the body parser, the prompt route up to the session lookup, the reply), and a client's
 * first prompts paid for it: measured beside the build before it (16 bench-like boots each), 30
 * rounds made a session's first turn 5-7 % faster and a later turn 7-9 %.
 *
 * Nothing changes: the prompt names a session id just drawn, which no session has, so each is
 * answered 404 `session_not_found` after a read of the session table. `stopped()` is asked before
 * each request, so a daemon that begins to stop sends no more; a request that gets no answer is the last
 * (a listener this machine cannot reach from itself would only make each of them wait). Never rejects.
 */
export async function warmRequestPath(target: WarmUpTarget, rounds: number, stopped: () => boolean, timeoutMs = REQUEST_TIMEOUT_MS): Promise<WarmUpReport> {
  const started = performance.now();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const statuses: Record<string, number> = {};
  let requests = 0;
  const auth: Record<string, string> = target.token === null ? {} : { authorization: `Bearer ${target.token}` };
  /** Whether the request was answered at all: one that was not ends the warm-up, as the next would fare no better. */
  const send = async (method: string, path: string, body?: string) => {
    const headers = body === undefined ? auth : { ...auth, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) };
    const status = await answerStatus(agent, target, { method, path, headers, timeout: timeoutMs }, body);
    statuses[status] = (statuses[status] ?? 0) + 1;
    requests += 1;
    return status !== FAILED;
  };
  try {
    for (let i = 0; i < rounds && !stopped(); i += 1) {
      if (!(await send('GET', '/health')) || stopped()) break;
      if (!(await send('POST', `/session/${newSessionId()}/prompt`, PROMPT_BODY))) break;
    }
  } finally {
    agent.destroy();
  }
  return { requests, statuses, ms: performance.now() - started };
}

/**
 * Whether a daemon warms its request path: only a daemon alone, without a rate limit. A cluster node would
 * claim a lease for each prompt's session id, and a rate limit's windows would count the requests against the clients.
 */
export function warmsUp(config: Pick<Config, 'cluster' | 'bus'>, rateLimited: boolean): boolean {
  return config.cluster === null && config.bus === null && !rateLimited;
}

/** Where a client on this machine reaches a listener bound to `address`: a wildcard bind through loopback. */
export function ownAddress(address: AddressInfo): string {
  if (address.address === '0.0.0.0') return '127.0.0.1';
  if (address.address === '::') return '::1';
  return address.address;
}

function answerStatus(agent: http.Agent, target: WarmUpTarget, options: http.RequestOptions, body?: string): Promise<string> {
  return new Promise((resolve) => {
    const request = http.request({ ...options, host: target.host, port: target.port, agent });
    // The first of these settles the promise; a connection closed by a stopping daemon ends in `close`.
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(FAILED));
    request.on('close', () => resolve(FAILED));
    request.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(String(res.statusCode)));
      res.on('close', () => resolve(FAILED));
    });
    request.end(body);
  });
}
