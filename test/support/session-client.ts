import { parseSseStream } from '@qwen-code/sdk/daemon';
import type { JsonResponse, TestDaemon } from './daemon.js';

/** One event as the SSE `data:` line carries it (the whole envelope, spec §7.3). */
export type WireEvent = { id?: number; v: 1; type: string; data: any; promptId?: string; originatorClientId?: string };

/**
 * A session event stream over real HTTP, parsed by the official SDK parser
 * (`parseSseStream`), read with predicates instead of fixed counts.
 */
export class EventReader {
  readonly seen: WireEvent[] = [];
  ended = false;
  private readonly iterator: AsyncGenerator<WireEvent>;

  private constructor(
    readonly response: Response,
    private readonly abort: AbortController,
  ) {
    this.iterator = parseSseStream(response.body!, abort.signal) as AsyncGenerator<WireEvent>;
  }

  /** Opens `GET /session/{id}/events`; by default from cursor 0, so nothing published since creation is missed. */
  static async open(
    d: TestDaemon,
    sessionId: string,
    options: { lastEventId?: number | null; headers?: Record<string, string>; query?: string } = {},
  ): Promise<EventReader> {
    const abort = new AbortController();
    const headers: Record<string, string> = { accept: 'text/event-stream', ...options.headers };
    const cursor = options.lastEventId === undefined ? 0 : options.lastEventId;
    if (cursor !== null) headers['last-event-id'] = String(cursor);
    const res = await d.fetch(`/session/${encodeURIComponent(sessionId)}/events${options.query ?? ''}`, {
      headers,
      signal: abort.signal,
    });
    if (res.status !== 200) throw new Error(`event stream refused: ${res.status} ${await res.text()}`);
    return new EventReader(res, abort);
  }

  /** Reads until an event satisfies `match`, and returns it (throws if the stream ends first). */
  async until(match: (e: WireEvent) => boolean): Promise<WireEvent> {
    for (const e of this.seen) if (match(e)) return e;
    for (;;) {
      const e = await this.next();
      if (e === null) throw new Error(`stream ended before the awaited event; saw ${this.seen.map((s) => s.type).join(', ')}`);
      if (match(e)) return e;
    }
  }

  /** The first event of this type (already seen or still to come). */
  type(type: string, where: (e: WireEvent) => boolean = () => true): Promise<WireEvent> {
    return this.until((e) => e.type === type && where(e));
  }

  /** The terminal event (`turn_complete` / `turn_error`) of one prompt. */
  terminal(promptId: string): Promise<WireEvent> {
    return this.until((e) => (e.type === 'turn_complete' || e.type === 'turn_error') && e.data?.promptId === promptId);
  }

  /** Everything until the server ends the stream. */
  async rest(): Promise<WireEvent[]> {
    while ((await this.next()) !== null) {
      /* collected in seen */
    }
    return this.seen;
  }

  private async next(): Promise<WireEvent | null> {
    if (this.ended) return null;
    const r = await this.iterator.next();
    if (r.done) {
      this.ended = true;
      return null;
    }
    this.seen.push(r.value);
    return r.value;
  }

  close(): void {
    this.abort.abort();
  }
}

export const text = (t: string) => [{ type: 'text', text: t }];

/** `POST /session`; asserts nothing, returns the raw answer. */
export function createSession(d: TestDaemon, body: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  return d.json('POST', '/session', body, headers);
}

/** Creates a fresh (`thread`) session and returns its id and client id, failing loudly otherwise. */
export async function newSession(
  d: TestDaemon,
  body: Record<string, unknown> = {},
): Promise<{ sessionId: string; clientId: string; body: any }> {
  const res = await createSession(d, { sessionScope: 'thread', ...body });
  if (res.status !== 200) throw new Error(`POST /session answered ${res.status}: ${JSON.stringify(res.body)}`);
  return { sessionId: res.body.sessionId, clientId: res.body.clientId, body: res.body };
}

/** `POST /session/{id}/prompt` with one text block. */
export function submit(
  d: TestDaemon,
  sessionId: string,
  prompt: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<JsonResponse> {
  return d.json('POST', `/session/${sessionId}/prompt`, { prompt: text(prompt), ...extra }, headers);
}

/** A vote body (spec §9.2). */
export const select = (optionId: string, answers?: Record<string, string>) => ({
  outcome: { outcome: 'selected', optionId },
  ...(answers ? { answers } : {}),
});

/** The option of a permission request with this ACP kind. */
export function optionOf(request: WireEvent, kind: string): string {
  const option = (request.data.options as { optionId: string; kind: string }[]).find((o) => o.kind === kind);
  if (!option) throw new Error(`no ${kind} option in ${JSON.stringify(request.data.options)}`);
  return option.optionId;
}

/** Polls a condition over HTTP without a deadline of its own (the test runner's timeout bounds it). */
export async function eventually<T>(probe: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  for (;;) {
    const v = await probe();
    if (ok(v)) return v;
    await new Promise((r) => setTimeout(r, 10));
  }
}
