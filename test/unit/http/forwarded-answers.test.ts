import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ForwardedRequest, ForwardedResponse } from '../../../src/cluster/port.js';
import { directForwardedAnswers } from '../../../src/http/forwarded-answers.js';
import { httpRateLimiter } from '../../../src/http/rate-limit.js';
import { ManualClock } from '../../support/events.js';
import { newSession } from '../../support/session-client.js';
import { startStack, type Stack } from '../../support/stack.js';

const TOKEN = 'forwarded-answers-token';
const MISSING = '11111111-2222-4333-8444-555555555555';
/** Connection-level headers: each hop has its own, so a client never sees the owner's. */
const HOP = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: unknown;
}

/** What a client reaching the owner directly gets, over real HTTP. */
async function directly(stack: Stack, url: string, headers: Record<string, string>): Promise<Answer> {
  const res = await fetch(stack.daemon.url + url, { headers });
  const kept: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (!HOP.has(name)) kept[name] = value;
  });
  return { status: res.status, headers: kept, body: await res.json() };
}

function decoded(answer: ForwardedResponse): Answer {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(answer.headers)) headers[name.toLowerCase()] = String(value);
  return { status: answer.status, headers, body: JSON.parse(Buffer.from(answer.body, 'base64').toString('utf8')) };
}

/** Answers as the owner would; with rate limits, in windows of its own that count as the daemon's do. */
function answererOf(stack: Stack) {
  const core = stack.daemon.daemon.core;
  const answer = directForwardedAnswers(core, () => stack.daemon.daemon.port, httpRateLimiter(core));
  const host = `127.0.0.1:${stack.daemon.daemon.port}`;
  return (request: ForwardedRequest) => answer(request, host);
}

describe('forwarded requests the owner answers without a pass through fastify', () => {
  let stack: Stack;
  let sessionId: string;
  let channelToken: string;

  before(async () => {
    stack = await startStack({ config: { token: TOKEN } });
    ({ sessionId } = await newSession(stack.daemon));
    ({ token: channelToken } = await stack.daemon.daemon.core.tokens.createChannelToken(stack.daemon.daemon.core.workspaces.list()[0]!.id));
  });
  after(() => stack?.close());

  const cases = (): Array<[string, string, Record<string, string>]> => [
    ['a status', `/session/${sessionId}/status`, { authorization: `Bearer ${TOKEN}` }],
    ['a status with a query', `/session/${sessionId}/status?x=1`, { authorization: `Bearer ${TOKEN}` }],
    ['an unknown session', `/session/${MISSING}/status`, { authorization: `Bearer ${TOKEN}` }],
    ['no token', `/session/${sessionId}/status`, {}],
    ['a wrong token', `/session/${sessionId}/status`, { authorization: 'Bearer not-the-token' }],
    ['a channel token', `/session/${sessionId}/status`, { authorization: `Bearer ${channelToken}` }],
    ['credentials in the query', `/session/${sessionId}/status?token=x`, { authorization: `Bearer ${TOKEN}` }],
  ];

  it('answers with the status, headers and body a direct request gets, refusals included', async () => {
    const answer = answererOf(stack);
    const statuses: number[] = [];
    for (const [name, url, headers] of cases()) {
      const forwarded = answer({ method: 'GET', url, headers, remoteAddress: '10.1.2.3' });
      assert.ok(forwarded, `${name}: answered directly`);
      const want = await directly(stack, url, headers);
      assert.deepEqual(decoded(await forwarded), want, name);
      statuses.push(want.status);
    }
    assert.deepEqual(statuses, [200, 200, 404, 401, 401, 403, 400]);
  });

  it('leaves to fastify what it cannot answer exactly: other routes, an Origin, another method', () => {
    const answer = answererOf(stack);
    const auth = { authorization: `Bearer ${TOKEN}` };
    assert.equal(answer({ method: 'GET', url: `/session/${sessionId}/context`, headers: auth }), undefined);
    assert.equal(answer({ method: 'POST', url: `/session/${sessionId}/status`, headers: auth }), undefined);
    assert.equal(answer({ method: 'GET', url: `/session/${sessionId}/status`, headers: { ...auth, origin: 'http://elsewhere.example' } }), undefined);
    assert.equal(answer({ method: 'GET', url: `/session/${sessionId}/status/`, headers: auth }), undefined);
    assert.equal(answer({ method: 'GET', url: `/session/a%2Fb/status`, headers: auth }), undefined);
  });
});

describe('forwarded requests under rate limits', () => {
  let stack: Stack;
  before(async () => {
    // Held still, so the window's reset second is the same for both ways of asking.
    const clock = new ManualClock(Date.now());
    stack = await startStack({ clock, config: { token: TOKEN, rateLimits: [{ tier: 'read', max: 2, windowMs: 60_000 }] } });
  });
  after(() => stack?.close());

  it('carries the same X-RateLimit headers, and the same 429 once over the limit', async () => {
    const { sessionId } = await newSession(stack.daemon);
    const answer = answererOf(stack);
    const url = `/session/${sessionId}/status`;
    const headers = { authorization: `Bearer ${TOKEN}`, 'x-qwen-client-id': 'rate-limited-client' };
    const statuses: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      const want = await directly(stack, url, headers);
      assert.deepEqual(decoded(await answer({ method: 'GET', url, headers, remoteAddress: '10.1.2.3' })!), want, `request ${i + 1}`);
      statuses.push(want.status);
    }
    assert.deepEqual(statuses, [200, 200, 429]);
  });
});

describe('forwarded requests on an anonymous daemon', () => {
  it('leaves them to fastify, whose local-user check needs the client’s socket', async () => {
    const stack = await startStack();
    try {
      const { sessionId } = await newSession(stack.daemon);
      assert.equal(answererOf(stack)({ method: 'GET', url: `/session/${sessionId}/status`, headers: {} }), undefined);
    } finally {
      await stack.close();
    }
  });
});
