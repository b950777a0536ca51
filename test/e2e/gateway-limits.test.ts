import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import WebSocket from 'ws';
import {
  channelPathFor,
  channelToken,
  dialChannel,
  gatewayCounters,
  remoteSession,
  runTurn,
  scriptPlans,
  startGatewayHost,
  until,
  type GatewayHost,
  type RawChannel,
  type TurnPlans,
} from '../support/gateway.js';
import { sqliteDb } from '../support/daemon.js';

/**
 * Issue 5 acceptance, the limit tests: seed 000 `limits` (20 channels, 4 per
 * token, 4 calls in flight per workspace, 2 MiB frames) and the channel's
 * authentication rules, against a real daemon over real WebSockets. A is
 * played by hand here so a test decides when each call is answered.
 */

const OWNER_TOKEN = 'owner-secret-for-gateway-tests';
const MiB = 1024 * 1024;

describe('gateway channel admission and limits', { timeout: 60_000 }, () => {
  let host: GatewayHost;
  const open: RawChannel[] = [];
  const dial = async (token: string, path = channelPathFor()) => {
    const d = await dialChannel(host.b.url, path, { authorization: `Bearer ${token}` });
    if (d.ok) open.push(d.channel);
    return d;
  };
  const closeAll = async () => {
    await Promise.all(open.splice(0).map((c) => c.close()));
    await until(async () => (await gatewayCounters(host.b)).gatewayChannels === 0);
  };

  before(async () => {
    host = await startGatewayHost({ token: OWNER_TOKEN });
  });
  after(async () => {
    await closeAll();
    await host.close();
  });

  test('/capabilities advertises the seed-000 limits and lists the remote workspace', async () => {
    const caps = await host.b.json('GET', '/capabilities');
    assert.equal(caps.status, 200);
    const { channels, channelsPerToken, inFlightCallsPerWorkspace, frameBytes } = caps.body.limits;
    assert.deepEqual({ channels, channelsPerToken, inFlightCallsPerWorkspace, frameBytes }, {
      channels: 20,
      channelsPerToken: 4,
      inFlightCallsPerWorkspace: 4,
      frameBytes: 2 * MiB,
    });
    const remote = caps.body.workspaces.find((w: any) => w.id === host.workspaceId);
    assert.deepEqual({ cwd: remote.cwd, location: remote.location }, { cwd: host.workspaceId, location: 'remote' });
  });

  test('the fifth channel on one token is refused with 429 channel_limit_exceeded, and a closed channel frees its slot', async () => {
    const token = await channelToken(host.b);
    for (let i = 0; i < 4; i++) assert.equal((await dial(token)).ok, true, `channel ${i + 1}`);
    const fifth = await dial(token);
    assert.equal(fifth.ok, false);
    if (fifth.ok) return;
    assert.equal(fifth.status, 429);
    assert.equal(fifth.body.code, 'channel_limit_exceeded');
    assert.equal(fifth.body.scope, 'token');
    assert.equal(fifth.headers['retry-after'], '5');
    assert.equal((await gatewayCounters(host.b)).gatewayChannels, 4);

    await open.shift()!.close();
    await until(async () => (await gatewayCounters(host.b)).gatewayChannels === 3);
    assert.equal((await dial(token)).ok, true, 'the freed slot is usable again');
    await closeAll();
  });

  test('the twenty-first channel is refused even on a token with no channel yet', async () => {
    for (let t = 0; t < 5; t++) {
      const token = await channelToken(host.b);
      for (let i = 0; i < 4; i++) assert.equal((await dial(token)).ok, true, `token ${t + 1} channel ${i + 1}`);
    }
    assert.equal((await gatewayCounters(host.b)).gatewayChannels, 20);
    const twentyFirst = await dial(await channelToken(host.b));
    assert.equal(twentyFirst.ok, false);
    if (twentyFirst.ok) return;
    assert.equal(twentyFirst.status, 429);
    assert.equal(twentyFirst.body.code, 'channel_limit_exceeded');
    assert.equal(twentyFirst.body.scope, 'daemon');
    await closeAll();
  });

  test('a token in the query string is refused with 400 credentials_in_query, with or without the header', async () => {
    const token = await channelToken(host.b);
    const withHeader = await dial(token, `${channelPathFor()}?token=${token}`);
    const queryOnly = await dialChannel(host.b.url, `${channelPathFor()}?access_token=${token}`, {});
    for (const d of [withHeader, queryOnly]) {
      assert.equal(d.ok, false);
      if (d.ok) continue;
      assert.equal(d.status, 400);
      assert.equal(d.body.code, 'credentials_in_query');
    }
  });

  test('only a channel token of this workspace opens its channel', async () => {
    const app = (await host.b.daemon.core.tokens.createAppToken('some-app', 'critical')).token;
    const otherWorkspace = await channelToken(host.b, 'some-other-workspace');
    const cases: Array<[string, Record<string, string>, number, string]> = [
      ['no token', {}, 401, 'token_required'],
      ['an unknown token', { authorization: 'Bearer berth_ch_not-a-real-token' }, 401, 'unauthorized'],
      ['the owner token', { authorization: `Bearer ${OWNER_TOKEN}` }, 403, 'token_scope_denied'],
      ['an application token', { authorization: `Bearer ${app}` }, 403, 'token_scope_denied'],
      ['a channel token of another workspace', { authorization: `Bearer ${otherWorkspace}` }, 403, 'token_scope_denied'],
    ];
    for (const [what, headers, status, code] of cases) {
      const d = await dialChannel(host.b.url, channelPathFor(), headers);
      assert.equal(d.ok, false, what);
      if (d.ok) continue;
      assert.deepEqual([d.status, d.body.code], [status, code], what);
    }
    const notRemote = await dialChannel(host.b.url, channelPathFor('some-other-workspace'), { authorization: `Bearer ${otherWorkspace}` });
    assert.equal(notRemote.ok, false);
    if (!notRemote.ok) assert.deepEqual([notRemote.status, notRemote.body.code], [400, 'workspace_not_remote']);
  });

  test('a channel token is refused with 403 token_scope_denied on every client-API route', async () => {
    const token = await channelToken(host.b);
    const paths = JSON.parse(readFileSync(new URL('../../contract/openapi.json', import.meta.url), 'utf8')).paths as Record<string, object>;
    let checked = 0;
    for (const [template, operations] of Object.entries(paths)) {
      const path = template.replace('{id}', '550e8400-e29b-41d4-a716-446655440000').replace('{requestId}', 'req-1');
      for (const method of Object.keys(operations).filter((m) => ['get', 'post', 'patch', 'delete', 'put'].includes(m))) {
        const res = await fetch(host.b.url + path, {
          method: method.toUpperCase(),
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          ...(method === 'get' || method === 'delete' ? {} : { body: '{}' }),
        });
        const body = (await res.json()) as { code: string };
        assert.deepEqual([res.status, body.code], [403, 'token_scope_denied'], `${method.toUpperCase()} ${template}`);
        checked += 1;
      }
    }
    assert.equal(checked, 25, 'all 25 operations of the seed OpenAPI');
  });

  test('a frame of 2 MiB + 1 byte closes the channel with 1009; a frame of exactly 2 MiB does not', async () => {
    const token = await channelToken(host.b);
    const d = await dial(token);
    assert.ok(d.ok);
    if (!d.ok) return;
    // A well-formed result for no call in flight, padded to exactly 2 MiB: read whole and ignored.
    const head = JSON.stringify({ type: 'result', id: 'no-such-call', sessionId: 'no-such-session', result: '' });
    const exact = head.replace('"result":""', `"result":"${'x'.repeat(2 * MiB - head.length)}"`);
    assert.equal(Buffer.byteLength(exact), 2 * MiB);
    d.channel.ws.send(exact);
    // B reads frames in order: a pong to a ping sent after the 2 MiB frame means that frame was taken.
    const pong = new Promise<string>((resolve) => {
      d.channel.ws.once('pong', () => resolve('pong'));
      d.channel.ws.once('close', () => resolve('closed'));
    });
    d.channel.ws.ping();
    assert.equal(await pong, 'pong');
    const tooBig = exact.replace('"result":"x', '"result":"xx');
    assert.equal(Buffer.byteLength(tooBig), 2 * MiB + 1);
    d.channel.ws.send(tooBig);
    const closed = await d.channel.closed;
    assert.equal(closed.code, 1009);
  });

  test('a frame that is not JSON closes with 1007, a frame of another type with 1002', async () => {
    const token = await channelToken(host.b);
    const a = await dial(token);
    const b = await dial(token);
    assert.ok(a.ok && b.ok);
    if (!a.ok || !b.ok) return;
    a.channel.ws.send('not json');
    b.channel.ws.send(JSON.stringify({ type: 'call', protocol: 1 }));
    assert.equal((await a.channel.closed).code, 1007);
    assert.equal((await b.channel.closed).code, 1002);
  });
});

describe('calls through one workspace’s channels', { timeout: 60_000 }, () => {
  let host: GatewayHost;
  const plans: TurnPlans = new Map();
  /** Prompt `read <label>` makes one read of `<label>.txt`, then ends the turn. */
  const readPrompt = (label: string) => {
    const prompt = `read ${label}`;
    plans.set(prompt, (seen) => (seen.length === 0 ? [{ id: `call-${label}`, name: 'workspace_read', arguments: { path: `${label}.txt` } }] : null));
    return prompt;
  };
  const fakeRead = (path: string, content: string) => ({ path, content, sha256: 'a'.repeat(64), size: content.length });

  before(async () => {
    host = await startGatewayHost({ channelWaitMs: 20_000 });
    scriptPlans(host.stack.model, plans);
  });
  after(() => host.close());

  test('at most four calls are in flight per workspace; the fifth and sixth wait and are sent in order', async () => {
    const d = await dialChannel(host.b.url, channelPathFor(), { authorization: `Bearer ${await channelToken(host.b)}` });
    assert.ok(d.ok);
    if (!d.ok) return;
    const a = d.channel;
    const sessions: string[] = [];
    const turns: Promise<Awaited<ReturnType<typeof runTurn>>>[] = [];
    const start = async (label: string) => {
      const sessionId = await remoteSession(host.b);
      sessions.push(sessionId);
      turns.push(runTurn(host.b, sessionId, readPrompt(label)));
    };
    for (let i = 1; i <= 4; i++) await start(`f${i}`);
    await a.call(4);
    await start('f5');
    await until(async () => (await gatewayCounters(host.b)).gatewayCallsWaiting === 1);
    await start('f6');
    const counters = await until(async () => {
      const c = await gatewayCounters(host.b);
      return c.gatewayCallsWaiting === 2 ? c : undefined;
    });
    assert.equal(counters.gatewayCallsInFlight, 4);
    assert.equal(a.calls.length, 4, 'the fifth call was not sent while four were unanswered');

    a.answer(a.calls[1], fakeRead('f2.txt', 'two'));
    const fifth = await a.call(5);
    assert.equal(fifth.sessionId, sessions[4], 'the fifth call is sent first');
    assert.equal(JSON.parse(fifth.args).path, 'f5.txt');
    assert.equal(a.calls.length, 5, 'one answer frees one slot');
    a.answer(a.calls[0], fakeRead('f1.txt', 'one'));
    const sixth = await a.call(6);
    assert.equal(sixth.sessionId, sessions[5]);
    for (const c of [a.calls[2], a.calls[3], fifth, sixth]) a.answer(c, fakeRead(JSON.parse(c.args).path, 'rest'));

    const done = await Promise.all(turns);
    for (const [i, turn] of done.entries()) {
      assert.equal(turn.terminal.type, 'turn_complete', `turn ${i + 1}`);
      assert.equal(turn.calls.length, 1);
      assert.equal(turn.calls[0]!.status, 'completed');
      assert.equal(turn.calls[0]!.rawOutput.path, `f${i + 1}.txt`);
    }
    for (const c of a.calls) {
      assert.equal(c.type, 'call');
      assert.equal(c.protocol, 1);
      assert.equal(c.workspaceId, host.workspaceId);
      assert.equal(c.intention, host.intention);
      assert.equal(c.tool, 'workspace_read');
      assert.equal(typeof c.args, 'string');
    }
    await a.close();
  });

  test('an unanswered call is sent again with the same id after a reconnect, and a duplicate result is ignored', async () => {
    const token = await channelToken(host.b);
    const first = await dialChannel(host.b.url, channelPathFor(), { authorization: `Bearer ${token}` });
    assert.ok(first.ok);
    if (!first.ok) return;
    const sessionId = await remoteSession(host.b);
    const turn = runTurn(host.b, sessionId, readPrompt('again'));
    const sent = await first.channel.call(1);
    first.channel.ws.terminate();
    await until(async () => (await gatewayCounters(host.b)).gatewayChannels === 0);

    const second = await dialChannel(host.b.url, channelPathFor(), { authorization: `Bearer ${token}` });
    assert.ok(second.ok);
    if (!second.ok) return;
    const resent = await second.channel.call(1);
    assert.equal(resent.id, sent.id, 'the same call id');
    assert.equal(resent.args, sent.args);
    second.channel.answer(resent, fakeRead('again.txt', 'first answer'));
    second.channel.answer(resent, fakeRead('again.txt', 'second answer'));
    const settled = await turn;
    assert.equal(settled.calls.length, 1);
    assert.equal(settled.calls[0]!.rawOutput.content, 'first answer');
    // A read has no effect to settle after a restart, so B does not journal it (docs/gateway.md); writes are (gateway-faults).
    const row = sqliteDb(host.b.daemon).prepare('SELECT state FROM gateway_calls WHERE id = ?').get(sent.id);
    assert.equal(row, undefined);
    assert.equal(second.channel.ws.readyState, WebSocket.OPEN, 'a duplicate result does not break the channel');
    await second.channel.close();
  });

  test('a call waits for a channel and fails channel_unavailable when none comes in time', async () => {
    const quick = await startGatewayHost({ channelWaitMs: 300 });
    try {
      scriptPlans(quick.stack.model, plans);
      const sessionId = await remoteSession(quick.b);
      const turn = await runTurn(quick.b, sessionId, readPrompt('nobody'));
      assert.equal(turn.calls.length, 1);
      assert.equal(turn.calls[0]!.code, 'channel_unavailable');
    } finally {
      await quick.close();
    }
  });

  test('a call made while no channel is up is sent once a channel opens', async () => {
    const sessionId = await remoteSession(host.b);
    const turn = runTurn(host.b, sessionId, readPrompt('later'));
    await until(async () => (await gatewayCounters(host.b)).gatewayCallsWaiting === 1);
    const d = await dialChannel(host.b.url, channelPathFor(), { authorization: `Bearer ${await channelToken(host.b)}` });
    assert.ok(d.ok);
    if (!d.ok) return;
    const sent = await d.channel.call(1);
    d.channel.answer(sent, fakeRead('later.txt', 'arrived'));
    const settled = await turn;
    assert.equal(settled.calls[0]!.rawOutput.content, 'arrived');
    await d.channel.close();
  });
});
