import { headers } from './api';

/** One event of the stream: `{id?, v, type, data}` (docs/client-api.md §7-§8). */
export interface Envelope {
  readonly id?: number;
  readonly type: string;
  readonly data: any;
  readonly promptId?: string;
  readonly _meta?: { readonly serverTimestamp?: number };
}

export type LinkState = 'connecting' | 'live' | 'reconnecting' | 'resynced' | 'closed';

export interface StreamOptions {
  readonly sessionId: string;
  readonly clientId: string;
  /** The cursor to resume from and the epoch it belongs to (from load or the last event seen). */
  lastEventId: number;
  epoch: string;
  onEvent(e: Envelope): void;
  onState(s: LinkState): void;
  /** The daemon cannot replay from our cursor (new epoch, or the ring moved on): rebuild through load. */
  onResync(): void;
}

/** Waits before a reconnect, doubling up to a bound; never a busy loop. */
const RETRY_MS = [500, 1000, 2000, 4000];

/**
 * Follows a session's event stream through fetch streaming (EventSource cannot send the
 * Authorization header). Reconnects with Last-Event-ID and X-Qwen-Event-Epoch, so nothing is lost
 * or repeated; `state_resync_required` hands over to a rebuild. Returns the stop function.
 */
export function followEvents(o: StreamOptions): () => void {
  const abort = new AbortController();
  let attempt = 0;
  const run = async () => {
    while (!abort.signal.aborted) {
      o.onState(attempt === 0 ? 'connecting' : 'reconnecting');
      try {
        const res = await fetch(`/session/${encodeURIComponent(o.sessionId)}/events?snapshot=1`, {
          headers: headers({
            accept: 'text/event-stream',
            'x-qwen-client-id': o.clientId,
            'last-event-id': String(o.lastEventId),
            'x-qwen-event-epoch': o.epoch,
          }),
          signal: abort.signal,
        });
        if (res.status === 404) return o.onState('closed');
        if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
        o.epoch = res.headers.get('x-qwen-event-epoch') ?? o.epoch;
        const resumed = attempt > 0;
        attempt = 0;
        o.onState(resumed ? 'resynced' : 'live');
        const end = await read(res.body, (e) => {
          if (e.type === 'state_resync_required') {
            abort.abort();
            o.onResync();
            return;
          }
          if (typeof e.id === 'number') o.lastEventId = e.id;
          o.onEvent(e);
        });
        if (end === 'closed') return o.onState('closed');
      } catch {
        if (abort.signal.aborted) return;
      }
      if (abort.signal.aborted) return;
      const wait = RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)]!;
      attempt += 1;
      o.onState('reconnecting');
      await new Promise((r) => setTimeout(r, wait));
    }
  };
  void run();
  return () => abort.abort();
}

/** Reads SSE frames until the body ends; `closed` when the session said it is gone. */
async function read(body: ReadableStream<Uint8Array>, emit: (e: Envelope) => void): Promise<'ended' | 'closed'> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let closed = false;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return closed ? 'closed' : 'ended';
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const frame = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const data = frame
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data === '') continue;
      let e: Envelope;
      try {
        e = JSON.parse(data) as Envelope;
      } catch {
        continue;
      }
      if (e.type === 'session_closed' || e.type === 'session_died') closed = true;
      emit(e);
    }
  }
}
