import assert from 'node:assert/strict';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSseStream, type DaemonEvent } from '@qwen-code/sdk/daemon';
import { tempDir } from './tmp.js';

/** Plain HTTP to a daemon by its URL (a spawned one, or any node of a cluster), without a TestDaemon. */
export async function call(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(base + path, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** A second home for a second node on the same machine, with the first home's model services. */
export function siblingHome(home: string): string {
  const other = tempDir('berth-home-');
  copyFileSync(join(home, 'config.json'), join(other, 'config.json'));
  return other;
}

/** An SSE stream read with the SDK's own parser, with its epoch header. */
export async function openStream(base: string, sessionId: string, headers: Record<string, string>) {
  const abort = new AbortController();
  const res = await fetch(`${base}/session/${sessionId}/events`, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  assert.equal(res.status, 200);
  const events = parseSseStream(res.body!, abort.signal)[Symbol.asyncIterator]();
  const seen: DaemonEvent[] = [];
  return {
    epoch: res.headers.get('x-qwen-event-epoch')!,
    seen,
    /** The first event (already seen or still to come) that matches. */
    async until(match: (e: DaemonEvent) => boolean): Promise<DaemonEvent> {
      const earlier = seen.find(match);
      if (earlier) return earlier;
      for (;;) {
        const r = await events.next();
        if (r.done) throw new Error(`stream ended; saw ${seen.map((e) => e.type).join(', ')}`);
        seen.push(r.value);
        if (match(r.value)) return r.value;
      }
    },
    /** Resolves once the daemon ends the stream. */
    async ended(): Promise<void> {
      for (;;) {
        const r = await events.next().catch(() => ({ done: true as const, value: undefined }));
        if (r.done) return;
        seen.push(r.value);
      }
    },
    close: () => abort.abort(),
  };
}

export const updateOf = (e: DaemonEvent) => (e.data as any)?.update ?? {};

/** Waits until the session's stored transcript (read through the daemon) holds `text`: the recorder writes within a moment. */
export async function transcriptHolds(base: string, sessionId: string, text: string, headers: Record<string, string> = {}): Promise<void> {
  for (;;) {
    const page = await call(base, 'GET', `/session/${sessionId}/transcript?direction=backward&limit=3`, undefined, headers);
    if (page.body.events.some((e: any) => e.data.content?.text === text)) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}
