import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ForwardedRequest, ForwardedResponse } from '../../../src/cluster/port.js';
import { directForwardedAnswers } from '../../../src/http/forwarded-answers.js';
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

function answererOf(stack: Stack) {
  const core = stack.daemon.daemon.core;
  const answer = directForwardedAnswers(core, () => stack.daemon.daemon.port);
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

describe('forwarded requests on daemons whose hooks need fastify', () => {
  it('leaves them to fastify on an anonymous daemon and on one with rate limits', async () => {
    for (const config of [{}, { token: TOKEN, rateLimits: [{ tier: 'read' as const, max: 100, windowMs: 60_000 }] }]) {
      const stack = await startStack({ config });
      try {
        const { sessionId } = await newSession(stack.daemon);
        assert.equal(answererOf(stack)({ method: 'GET', url: `/session/${sessionId}/status`, headers: { authorization: `Bearer ${TOKEN}` } }), undefined);
      } finally {
        await stack.close();
      }
    }
  });
});
