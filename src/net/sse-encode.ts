import { SSE_RETRY_MS } from './limits.js';
import type { EventEnvelope, EventFrame } from '../events/types.js';

/**
 * The SSE wire form of docs/client-api.md §7.3, byte for byte as `qwen serve` writes it
 * (reference c-sse-text-turn.raw.txt):
 *
 *   retry: 3000            ← once, first
 *   id: 7                  ← only for id-bearing events
 *   event: session_update  ← always, also for control frames
 *   data: {…envelope…}     ← the whole envelope, one line of JSON
 *   (blank line)
 *   : heartbeat            ← comment every 15 s
 *
 * The official SDK reads only the `data:` line (docs/client-api.md §7.3); `id:`
 * and `event:` are for EventSource. JSON.stringify never emits a raw newline,
 * and the bus refuses types with control characters, so a frame cannot split.
 */
export const SSE_PREAMBLE = `retry: ${SSE_RETRY_MS}\n\n`;
export const SSE_HEARTBEAT = ': heartbeat\n\n';
export const SSE_FRAME_END = '\n\n';

/** Everything before the JSON: the `id:` and `event:` lines and the `data: ` prefix. */
export function frameHead(envelope: EventEnvelope): string {
  const id = envelope.id === undefined ? '' : `id: ${envelope.id}\n`;
  return `${id}event: ${envelope.type}\ndata: `;
}

/** A whole frame, built from the frame's shared serialization (no re-stringify per subscriber). */
export function encodeFrame(frame: EventFrame): string {
  return frameHead(frame.envelope) + frame.json + SSE_FRAME_END;
}

/** Frames already encoded, for as long as the frame itself lives (the ring or a queue holds it). */
const encoded = new WeakMap<EventFrame, Buffer>();

/**
 * A frame's bytes, encoded once and written as they are to every subscriber
 * (issue 17, fan-out): 64 subscribers cost one UTF-8 encoding, not 64.
 */
export function frameBytes(frame: EventFrame): Buffer {
  let bytes = encoded.get(frame);
  if (bytes === undefined) {
    bytes = Buffer.from(encodeFrame(frame), 'utf8');
    encoded.set(frame, bytes);
  }
  return bytes;
}
