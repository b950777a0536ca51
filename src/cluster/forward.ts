import type { Logger } from '../log.js';
import { BerthError } from '../protocol/errors/index.js';
import type { ForwardedRequest, ForwardedResponse } from './port.js';
import { httpSubject } from './subjects.js';
import { BusRequestError, type BusSubscription, type BusTransport } from './transport.js';

/**
 * Client API requests for a session another node runs (docs/cluster-bus.md): the
 * request goes whole to the owner over request/reply, the owner runs it through its
 * own HTTP stack, and its status, headers and body come back as they are. A message
 * larger than the bus takes is refused whole (413 `bus_message_too_large`), never cut.
 */
export async function forwardRequest(
  transport: BusTransport,
  nodeId: string,
  request: ForwardedRequest,
  timeoutMs: number,
): Promise<ForwardedResponse> {
  // Encoded once here: measured and sent as the same bytes, not a string the client encodes again.
  const message = Buffer.from(JSON.stringify(request));
  if (message.length > transport.maxPayload) {
    throw new BerthError('bus_message_too_large', `The forwarded request exceeds the bus message size (${transport.maxPayload} bytes)`, { limit: transport.maxPayload });
  }
  let data: Uint8Array;
  try {
    data = await transport.request(httpSubject(nodeId), message, timeoutMs);
  } catch (err) {
    if (err instanceof BusRequestError) throw new BerthError('owner_unreachable', undefined, { reason: err.reason });
    throw err;
  }
  const answer = JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8')) as ForwardedResponse | { tooLarge: true; limit: number };
  if ('tooLarge' in answer) {
    throw new BerthError('bus_message_too_large', `The owner's answer exceeds the bus message size (${answer.limit} bytes)`, { limit: answer.limit });
  }
  return answer;
}

/** Serves the requests other nodes forward to this one, each through `handle` (the HTTP stack). */
export function serveForwarded(
  transport: BusTransport,
  nodeId: string,
  handle: (request: ForwardedRequest) => Promise<ForwardedResponse>,
  log: Logger,
): BusSubscription {
  return transport.serve(httpSubject(nodeId), async (data) => {
    let request: ForwardedRequest;
    try {
      request = readRequest(data);
    } catch (err) {
      log.warn({ err }, 'a malformed request on the cluster bus was ignored');
      throw err;
    }
    const answer = Buffer.from(JSON.stringify(await handle(request)));
    if (answer.length <= transport.maxPayload) return answer;
    return JSON.stringify({ tooLarge: true, limit: transport.maxPayload });
  });
}

function readRequest(data: Uint8Array): ForwardedRequest {
  const value = JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8')) as Partial<ForwardedRequest> | null;
  const fine =
    value !== null && typeof value === 'object' &&
    typeof value.method === 'string' && typeof value.url === 'string' && value.url.startsWith('/') &&
    typeof value.headers === 'object' && value.headers !== null &&
    (value.body === undefined || typeof value.body === 'string') &&
    (value.remoteAddress === undefined || typeof value.remoteAddress === 'string');
  if (!fine) throw new Error('not a forwarded request');
  return value as ForwardedRequest;
}
