import { BerthError } from '../protocol/errors/index.js';
import { errorFrom } from './bus-errors.js';
import type { GatewayAnswer, GatewayMessage } from './gateway-serve.js';
import { GATEWAY_PROBE_MS, GATEWAY_RELAY_TIMEOUT_MS, GATEWAY_WHERE_TIMEOUT_MS } from './limits.js';
import { gatewaySubject, gatewayWhereSubject } from './subjects.js';
import { BusRequestError, type BusTransport } from './transport.js';

/** Nothing was sent: the holder had no (suitable) channel any more when the call arrived, or was gone before it. */
export const NOT_HELD = Symbol('not held');

/** What a lost call is reported as: a read is unavailable, anything with an effect uncertain. */
export interface AskedCall {
  readonly workspaceId: string;
  readonly tool: string;
  readonly effectful: boolean;
}

/** The node holding a channel of the workspace now, as the first holder to answer says; undefined when none does. */
export async function whereHeld(transport: BusTransport, workspaceId: string): Promise<string | undefined> {
  try {
    const data = await transport.request(gatewayWhereSubject(workspaceId), '', GATEWAY_WHERE_TIMEOUT_MS);
    return Buffer.from(data).toString('utf8');
  } catch (err) {
    if (err instanceof BusRequestError) return undefined;
    throw err;
  }
}

/**
 * Sends a call (or a handed-over call) to `holder` and waits for its hub's answer, probing
 * meanwhile that the holder still listens; an abort of `signal` tells the holder to cancel it.
 */
export async function askHolder(
  transport: BusTransport,
  holder: string,
  message: Extract<GatewayMessage, { ticket: string }>,
  call: AskedCall,
  signal: AbortSignal,
  probeMs = GATEWAY_PROBE_MS,
): Promise<string | typeof NOT_HELD> {
  const subject = gatewaySubject(holder);
  const send = (m: GatewayMessage, timeoutMs: number) => transport.request(subject, JSON.stringify(m), timeoutMs);
  const text = JSON.stringify(message);
  if (Buffer.byteLength(text) > transport.maxPayload) {
    throw new BerthError('bus_message_too_large', `The relayed call exceeds the bus message size (${transport.maxPayload} bytes)`, { limit: transport.maxPayload });
  }
  const onAbort = () => void send({ op: 'cancel', ticket: message.ticket }, GATEWAY_WHERE_TIMEOUT_MS).catch(() => undefined);
  signal.addEventListener('abort', onAbort, { once: true });
  let probes: NodeJS.Timeout | undefined;
  const holderGone = new Promise<'gone'>((resolve) => {
    probes = setInterval(() => {
      send({ op: 'probe' }, GATEWAY_WHERE_TIMEOUT_MS).catch((err: unknown) => {
        if (err instanceof BusRequestError && err.reason === 'no_responders') resolve('gone');
      });
    }, probeMs);
  });
  try {
    const answered = await Promise.race([transport.request(subject, text, GATEWAY_RELAY_TIMEOUT_MS), holderGone]);
    if (answered === 'gone') throw lost(call, `the node ${holder} holding its channel stopped answering`);
    return readAnswer(answered);
  } catch (err) {
    if (!(err instanceof BusRequestError)) throw err;
    // Nobody listened on the holder's subject: it went away before the call reached it, so nothing was sent.
    if (err.reason === 'no_responders') return NOT_HELD;
    throw lost(call, `the node ${holder} holding its channel did not answer (${err.reason})`);
  } finally {
    clearInterval(probes);
    signal.removeEventListener('abort', onAbort);
  }
}

function readAnswer(data: Uint8Array): string | typeof NOT_HELD {
  const answer = JSON.parse(Buffer.from(data).toString('utf8')) as GatewayAnswer;
  if ('notHeld' in answer) return NOT_HELD;
  if (answer.ok) return answer.result;
  throw errorFrom(answer.error);
}

/** A call that went out and whose answer will never come back (as src/gateway/host/workspace-line.ts reports a lost channel). */
function lost(call: AskedCall, why: string): BerthError {
  if (!call.effectful) return new BerthError('channel_unavailable', `The call to ${call.tool} got no answer: ${why}`, { workspaceId: call.workspaceId });
  return new BerthError(
    'uncertain_effect',
    `The call to ${call.tool} may have run on the owner's machine: ${why}. Inspect its effects before trying again.`,
    { tool: call.tool },
  );
}
