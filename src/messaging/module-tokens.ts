import { createHash, randomBytes } from 'node:crypto';

/** Module tokens say what they are, so one pasted in the wrong place is recognised. */
export const MODULE_TOKEN_PREFIX = 'berth_mod_';

/** A fresh module token: 32 random bytes. Only its hash is ever stored. */
export function mintModuleToken(): string {
  return MODULE_TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/**
 * The stored form of a token. Lookup is by this digest, so comparing it leaks
 * nothing about the token itself (as in src/tokens/tokens.ts).
 */
export function moduleTokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
