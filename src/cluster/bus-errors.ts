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
