import type { FastifyRequest } from 'fastify';
import { CLIENT_ID_PATTERN } from './limits.js';
import { BerthError } from '../protocol/errors/index.js';

/**
 * Reads `X-Qwen-Client-Id` (docs/client-api.md §2.6): absent or empty → undefined; present but
 * malformed → 400 `invalid_client_id`. Whether the id is registered on a session
 * is the session manager's question, not this one.
 */
export function clientIdOf(request: FastifyRequest): string | undefined {
  const raw = request.headers['x-qwen-client-id'];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (value === undefined || value === '') return undefined;
  if (!CLIENT_ID_PATTERN.test(value)) {
    throw new BerthError(
      'invalid_client_id',
      '`X-Qwen-Client-Id` must be a non-empty token of 128 characters or fewer from [A-Za-z0-9._:-]',
    );
  }
  return value;
}
