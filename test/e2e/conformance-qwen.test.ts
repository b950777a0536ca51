import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { SSE_HEARTBEAT } from '../../src/net/sse-encode.js';
import { SSE_HEARTBEAT_MS } from '../../src/http/limits.js';
import type { ScriptStep } from '../../src/devtools/scripted-model/index.js';
import { RawStream } from '../support/sse-app.js';
import { stackPerSuite, type Stack } from '../support/stack.js';
import { envelopesOf, layoutOf, parseSseText, ShapeComparison, type Envelope, type SseFrame } from '../support/wire-shape.js';
import { QWEN_DIFFERENCES } from './qwen-differences.js';

/**
 * Issue 3 acceptance: for a text turn with reasoning, a tool call approved, a
 * tool call rejected, a queue with a cancel, and reconnects, Berth sends the
 * same event types with the same field names (envelope and data, recursively)
 * as `qwen serve` 0.24.4 did in the recordings under test/fixtures/qwen-serve/
 * (copied from the shared reference; see its INDEX.md). Values differ by
 * nature (ids, times, texts); shapes must not, except where
 * qwen-differences.ts says why.
 */

const recording = (name: string) =>
  JSON.parse(readFileSync(new URL(`../fixtures/qwen-serve/${name}`, import.meta.url), 'utf8'));
const recordedEvents = (file: string, step: number): Envelope[] =>
  (recording(file).steps[step].frames as { data?: Envelope }[]).flatMap((f) => (f.data ? [f.data] : []));

const comparison = new ShapeComparison(QWEN_DIFFERENCES);

function assertConforms(name: string, recorded: readonly Envelope[], observed: readonly Envelope[]): void {
  assert.ok(recorded.length > 0 && observed.length > 0, `${name}: both sides have events`);
  assert.deepEqual(comparison.unexplained(recorded, observed), [], `${name}: differences from the qwen recording`);
}

/** A live (no cursor) stream, read as raw bytes the way the recordings were captured. */
async function openStream(stack: Stack, sessionId: string, headers: Record<string, string> = {}): Promise<RawStream> {
  return RawStream.open(`${stack.daemon.url}/session/${sessionId}/events`, { accept: 'text/event-stream', ...headers });
}

const count = (text: string, needle: string) => text.split(needle).length - 1;
const framesOf = (stream: RawStream): SseFrame[] => parseSseText(stream.text);

async function createSession(stack: Stack, body: Record<string, unknown>) {
  const res = await stack.daemon.json('POST', '/session', body);
  assert.equal(res.status, 200);
  return { sessionId: res.body.sessionId as string, clientId: res.body.clientId as string };
}

function prompt(stack: Stack, sessionId: string, clientId: string, text: string) {
  return stack.daemon.json('POST', `/session/${sessionId}/prompt`, { prompt: [{ type: 'text', text }] }, { 'x-qwen-client-id': clientId });
}

const writeCall = (path: string, content: string): ScriptStep => ({
  kind: 'reply',
  reasoning: 'I will create the file.',
  toolCalls: [{ name: 'workspace_write', arguments: { path, content, expectedSha256: null } }],
});

describe('Berth speaks the event shapes of the qwen serve recordings', { timeout: 60_000 }, () => {
  let stack: Stack;
  stackPerSuite((started) => (stack = started));

  test('a text turn with reasoning (c-sse-text-turn): events, fields, SSE framing and stream headers', async () => {
    const { sessionId, clientId } = await createSession(stack, { sessionScope: 'thread' });
    const stream = await openStream(stack, sessionId, { 'x-qwen-client-id': clientId });
    try {
      stack.model.enqueue({
        kind: 'reply',
        reasoning: 'Thinking about a greeting.',
        text: 'Hello from the mock model. This reply is streamed in several chunks.',
        chunkChars: 12,
      });
      const accepted = await prompt(stack, sessionId, clientId, 'Say hello');
      assert.equal(accepted.status, 202);
      const recordedAccepted = recording('c-sse-text-turn.json').steps[1].response.body;
      assert.deepEqual(Object.keys(accepted.body).sort(), Object.keys(recordedAccepted).sort(), '202 body fields');
      await stream.until((t) => t.includes('event: turn_complete'));

      assertConforms('text turn', recordedEvents('c-sse-text-turn.json', 3), envelopesOf(framesOf(stream)));

      // Framing, byte for byte against the raw capture: the retry preamble first, then
      // `id:`/`event:`/`data:` frames whose id and event repeat the envelope's.
      const raw = readFileSync(new URL('../fixtures/qwen-serve/c-sse-text-turn.raw.txt', import.meta.url), 'utf8');
      const recordedFrames = parseSseText(raw);
      const berthFrames = framesOf(stream);
      assert.ok(raw.startsWith('retry: 3000\n\n') && stream.text.startsWith('retry: 3000\n\n'));
      assert.equal(stream.text.includes('\r'), false, 'lines end in a bare \\n, as in the capture');
      const layouts = (frames: SseFrame[]) => new Set(frames.map(layoutOf));
      assert.deepEqual(layouts(berthFrames), new Set(['retry', 'id,event,data']));
      assert.ok([...layouts(berthFrames)].every((l) => layouts(recordedFrames).has(l)));
      for (const frame of berthFrames.filter((f) => layoutOf(f) === 'id,event,data')) {
        const envelope = JSON.parse(frame[2]![1]) as Envelope;
        assert.equal(frame[0]![1], String(envelope.id));
        assert.equal(frame[1]![1], envelope.type);
      }
      // The heartbeat comment: the capture shows it after 15 s of quiet.
      const heartbeat = recordedFrames.find((f) => layoutOf(f) === ':')!;
      assert.equal(SSE_HEARTBEAT, `: ${heartbeat[0]![1]}\n\n`);
      assert.equal(SSE_HEARTBEAT_MS, 15_000);

      // Headers: the same names (in the same order) and the same fixed values.
      const recordedHeaders = recording('c-sse-text-turn.json').steps[3].response.headers as Record<string, string>;
      const names = (raw: string[]) => raw.filter((_, i) => i % 2 === 0);
      const berthHeaders = stream.res.rawHeaders;
      const berthNames = names(berthHeaders);
      const expected = Object.keys(recordedHeaders).filter((n) => !['X-Powered-By', 'Date'].includes(n));
      assert.deepEqual(
        berthNames.filter((n) => expected.includes(n)),
        expected,
        'qwen’s stream headers, in qwen’s order',
      );
      for (const name of ['Content-Type', 'Cache-Control', 'Connection', 'X-Accel-Buffering', 'Transfer-Encoding']) {
        assert.equal(stream.res.headers[name.toLowerCase()], recordedHeaders[name], name);
      }
      const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
      assert.match(String(stream.res.headers['x-qwen-event-epoch']), uuid);
      assert.match(String(stream.res.headers['x-qwen-sse-stream-id']), uuid);
      assert.equal(stream.res.headers['x-qwen-event-epoch'], accepted.body.eventEpoch);
    } finally {
      stream.close();
    }
  });

  for (const [name, step, optionKind] of [
    ['a tool call approved (d-permission, approve)', 14, 'allow_once'],
    ['a tool call rejected (d-permission, reject)', 23, 'reject_once'],
  ] as const) {
    test(`${name}: permission_request, votes and the tool call updates`, async () => {
      const { sessionId, clientId } = await createSession(stack, { sessionScope: 'thread', approvalMode: 'default' });
      const stream = await openStream(stack, sessionId, { 'x-qwen-client-id': clientId });
      try {
        stack.model.enqueue(writeCall(`notes/${optionKind}.txt`, 'written by the scripted model\n'), {
          kind: 'reply',
          text: 'Done writing the file.',
        });
        assert.equal((await prompt(stack, sessionId, clientId, 'Create the file')).status, 202);
        await stream.until((t) => t.includes('event: permission_request'));
        const request = envelopesOf(framesOf(stream)).find((e) => e.type === 'permission_request')!;
        const option = request.data.options.find((o: { kind: string }) => o.kind === optionKind).optionId;
        const vote = (path: string, body: unknown) => stack.daemon.json('POST', path, body, { 'x-qwen-client-id': clientId });
        const route = `/session/${sessionId}/permission/${request.data.requestId}`;
        if (optionKind === 'allow_once') {
          // The recording's error votes first: none of them may publish anything.
          assert.equal((await vote(`/session/${sessionId}/permission/no-such-request`, { outcome: { outcome: 'selected', optionId: option } })).status, 404);
          assert.equal((await vote(route, { outcome: 'yes' })).status, 400);
          assert.equal((await vote(route, { outcome: { outcome: 'selected', optionId: 'no_such_option' } })).status, 400);
        }
        assert.equal((await vote(route, { outcome: { outcome: 'selected', optionId: option } })).status, 200);
        assert.equal((await vote(route, { outcome: { outcome: 'selected', optionId: option } })).status, 404);
        assert.equal((await vote(`/permission/${request.data.requestId}`, { outcome: { outcome: 'selected', optionId: option } })).status, 404);
        await stream.until((t) => t.includes('event: turn_complete'));

        assertConforms(name, recordedEvents('d-permission.json', step), envelopesOf(framesOf(stream)));
      } finally {
        stream.close();
      }
    });
  }

  test('a queue and a cancel (e-queue-cancel): pending_prompt_*, prompt_cancelled and the cancelled terminal', async () => {
    const { sessionId, clientId } = await createSession(stack, { sessionScope: 'thread' });
    const stream = await openStream(stack, sessionId, { 'x-qwen-client-id': clientId });
    try {
      stack.model.enqueue(
        { kind: 'reply', text: 'First answer, slowly.', chunkChars: 6, delayMs: 100 },
        { kind: 'reply', text: 'Second answer.' },
        { kind: 'hang', text: 'This should be cancelled' },
        { kind: 'reply', text: 'Answer after cancel.' },
      );
      assert.equal((await prompt(stack, sessionId, clientId, 'first question')).status, 202);
      await stream.until((t) => t.includes('"sessionUpdate":"agent_message_chunk"'));
      assert.equal((await prompt(stack, sessionId, clientId, 'second question')).status, 202);
      await stream.until((t) => count(t, 'event: turn_complete') === 2);

      assert.equal((await prompt(stack, sessionId, clientId, 'cancel me please')).status, 202);
      await stream.until((t) => t.includes('"text":"This should be c"')); // the hanging answer has begun
      const cancel = () => stack.daemon.json('POST', `/session/${sessionId}/cancel`, {}, { 'x-qwen-client-id': clientId });
      assert.equal((await cancel()).status, 204);
      await stream.until((t) => t.includes('"stopReason":"cancelled"'));
      assert.equal((await cancel()).status, 204); // idle now: still a prompt_cancelled, without a prompt id
      assert.equal((await prompt(stack, sessionId, clientId, 'after cancel')).status, 202);
      await stream.until((t) => count(t, 'event: turn_complete') === 4);

      assertConforms('queue and cancel', recordedEvents('e-queue-cancel.json', 20), envelopesOf(framesOf(stream)));
    } finally {
      stream.close();
    }
  });

  test('reconnects (f-reconnect): replay_complete after a replay, when caught up, and state_resync_required for a stale epoch', async () => {
    const { sessionId, clientId } = await createSession(stack, { sessionScope: 'thread' });
    const live = await openStream(stack, sessionId, { 'x-qwen-client-id': clientId });
    let epoch: string;
    let last: number;
    try {
      assert.equal((await prompt(stack, sessionId, clientId, 'hello')).status, 202);
      await live.until((t) => t.includes('event: turn_complete'));
      epoch = String(live.res.headers['x-qwen-event-epoch']);
      last = Math.max(...envelopesOf(framesOf(live)).map((e) => e.id ?? 0));
    } finally {
      live.close();
    }
    const synthetic: Envelope[] = [];
    const reconnect = async (cursor: number, withEpoch: string) => {
      const s = await openStream(stack, sessionId, { 'x-qwen-client-id': clientId, 'last-event-id': String(cursor), 'x-qwen-event-epoch': withEpoch });
      try {
        await s.until((t) => t.includes('event: replay_complete'));
        const frames = framesOf(s);
        // Synthetic frames carry no id line, as in the recording.
        for (const f of frames.filter((f) => layoutOf(f) === 'event,data')) synthetic.push(...envelopesOf([f]));
        assert.ok(frames.every((f) => ['retry', 'id,event,data', 'event,data'].includes(layoutOf(f))));
      } finally {
        s.close();
      }
    };
    await reconnect(1, epoch);
    await reconnect(last, epoch);
    await reconnect(1, '00000000-0000-4000-8000-000000000000');

    const recorded = [3, 5, 7].flatMap((step) => recordedEvents('f-reconnect.json', step).filter((e) => e.id === undefined));
    assertConforms('reconnects', recorded, synthetic);
  });

  // Runs last: the comparisons above note which entries they needed.
  test('every allow-listed difference is still a difference in one of the scenarios above', () => {
    assert.deepEqual(comparison.stale(), []);
  });
});
