import { BerthError, asBerthError, isErrorCode } from '../protocol/errors/index.js';

/** A refusal as it crosses the bus from the node that ran a call to the node that asked. */
export interface BusError {
  readonly code: string;
  readonly message: string;
  readonly details: Record<string, unknown>;
}

/** The failed answer of a call run for another node: its error, code and details kept. */
export function failedAnswer(err: unknown): { readonly ok: false; readonly error: BusError } {
  const e = asBerthError(err);
  return { ok: false, error: { code: e.code, message: e.message, details: e.details } };
}

/** The same error again on the asking node (a code this build does not know becomes `internal_error`). */
export function errorFrom(error: BusError): BerthError {
  return new BerthError(isErrorCode(error.code) ? error.code : 'internal_error', error.message, error.details);
}

/**
 * The value of another node's answer `{ok: true, value}`, or its error again for `{ok: false, error}`.
 * Anything else (a node of another build, a torn message) is refused as `internal_error` naming
 * the node, rather than read as a result.
 */
export function answerFrom<T>(data: Uint8Array, node: string): T {
  const a = busJson(data) as { ok?: unknown; value?: unknown; error?: Partial<BusError> } | null | undefined;
  if (a !== null && typeof a === 'object' && a.ok === true && 'value' in a) return a.value as T;
  const e = a?.error;
  if (a?.ok === false && e !== null && typeof e === 'object' && typeof e.code === 'string' && typeof e.message === 'string') {
    throw errorFrom({ code: e.code, message: e.message, details: e.details !== null && typeof e.details === 'object' ? e.details : {} });
  }
  throw new BerthError('internal_error', `The node ${node} answered with a malformed reply`, { node });
}

/** A bus message's JSON, or null when it is not JSON. */
export function busJson(data: Uint8Array): unknown {
  try {
    return JSON.parse(Buffer.from(data).toString('utf8'));
  } catch {
    return null;
  }
}
