import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { test } from 'node:test';
import { callModel } from '../../../src/agents/builtin/model-call.js';
import type { ChatPoster } from '../../../src/agents/models/chat-post.js';
import { systemClock } from '../../../src/clock.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/**
 * The `openai` package listens for `abort` on the signal it is given and never
 * removes that listener. On Node 20 a signal made by `AbortSignal.any` that has
 * an `abort` listener is held by Node itself until it aborts, so a combined
 * signal handed to the package stayed in memory for good, with the request it
 * could abort: about 1 KiB a model call, the post-GC heap growth the soak
 * measured (test/soak/sessions-soak.test.ts).
 */
/**
 * What a poster's `post()` resolves to for a streamed completion: `chunks` as SSE
 * events, then `[DONE]`; with `hangUntil`, the body stays open after the chunks until that
 * signal aborts, and then fails as a cut connection does.
 */
function sseAnswer(chunks: readonly object[], hangUntil?: AbortSignal): Promise<Response> {
  const text = chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('');
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(text));
      if (!hangUntil) {
        controller.enqueue(new TextEncoder().encode('data: [DONE]\n\n'));
        controller.close();
        return;
      }
      hangUntil.addEventListener('abort', () => controller.error(new Error('aborted')), { once: true });
    },
  });
  return Promise.resolve(new Response(body, { headers: { 'content-type': 'text/event-stream' } }));
}

function listeningClient(handed: WeakRef<AbortSignal>[]): ChatPoster {
  const post = (_body: string, signal: AbortSignal) => {
    // As the `openai` package did (client.js, fetchWithTimeout): once, and never removed.
    signal.addEventListener('abort', () => undefined, { once: true });
    handed.push(new WeakRef(signal));
    return sseAnswer([{ choices: [{ index: 0, delta: { content: 'OK.' }, finish_reason: 'stop' }] }]);
  };
  return { post };
}

test('a finished model call leaves nothing of its abort signal behind while the turn goes on', async () => {
  const handed: WeakRef<AbortSignal>[] = [];
  const client = listeningClient(handed);
  const turn = new AbortController(); // lives across every call, as a turn's signal does
  for (let i = 0; i < 20; i++) {
    const answer = await callModel({
      client,
      target: { serviceId: 'test', model: 'test-model', baseUrl: 'http://127.0.0.1:1' },
      messages: [{ role: 'user', content: 'hi' }],
      tools: [],
      signal: turn.signal,
      clock: systemClock,
      idleTimeoutMs: 60_000,
      profile: { contextWindow: 32_000, compactFraction: 0.8 },
      emit: () => undefined,
    });
    assert.equal(answer.text, 'OK.');
  }
  for (let i = 0; i < 4; i++) {
    gc();
    await new Promise((r) => setImmediate(r));
  }
  const kept = handed.filter((r) => r.deref() !== undefined).length;
  assert.equal(kept, 0, `${kept} of ${handed.length} signals handed to the client are still in memory`);
  assert.equal(turn.signal.aborted, false);
});

test('aborting the turn still aborts the model call, and a silent stream still stalls', async () => {
  const turn = new AbortController();
  let seen: AbortSignal | undefined;
  const client: ChatPoster = {
    post: (_body, signal) => {
      seen = signal;
      return sseAnswer([{ choices: [{ index: 0, delta: { content: 'par' }, finish_reason: null }] }], signal);
    },
  };
  const base = {
    client,
    target: { serviceId: 'test', model: 'test-model', baseUrl: 'http://127.0.0.1:1' },
    messages: [{ role: 'user' as const, content: 'hi' }],
    tools: [],
    clock: systemClock,
    profile: { contextWindow: 32_000, compactFraction: 0.8 },
    emit: () => undefined,
  };
  const running = callModel({ ...base, signal: turn.signal, idleTimeoutMs: 60_000 });
  setTimeout(() => turn.abort(), 20);
  const answer = await running;
  assert.equal(answer.aborted, true);
  assert.equal(seen?.aborted, true);

  await assert.rejects(callModel({ ...base, signal: new AbortController().signal, idleTimeoutMs: 30 }), /stalled/);
  assert.equal(seen?.aborted, true);
});
