import type { BerthError } from '../protocol/errors/index.js';

/**
 * The one place a BerthError becomes an HTTP response: the OpenAPI `Error` body
 * (`error`, `code`, `status`, `errorKind`, `retryable`, `retryAfterSeconds`,
 * plus context such as `sessionId` or `limit`) and a `Retry-After` header when
 * the error names a wait.
 */
export function errorBody(err: BerthError): Record<string, unknown> {
  const body: Record<string, unknown> = {
    error: err.message,
    code: err.code,
    status: err.status,
    retryable: err.retryable,
  };
  if (err.errorKind) body.errorKind = err.errorKind;
  const after = err.retryAfterSeconds;
  if (after !== undefined) body.retryAfterSeconds = after;
  if (err.hint) body.hint = err.hint;
  for (const [k, v] of Object.entries(err.details)) {
    if (!(k in body)) body[k] = v;
  }
  return body;
}
