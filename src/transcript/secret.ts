import { randomBytes } from 'node:crypto';

const KEY = 'transcript_token_secret';

/** Where the home keeps the secret (the store's key/value table implements it). */
export interface SecretStore {
  /** Keeps the first value stored under `key`; returns the value the key holds now. */
  claim(key: string, value: string): Promise<string>;
}

/**
 * The per-home secret that signs transcript cursors and snapshots (docs/client-api.md §10.1:
 * an invalid or tampered cursor is refused). Kept in the store, so cursors
 * stay valid across restarts of the same home and mean nothing to another home.
 */
export async function transcriptSecret(store: SecretStore): Promise<Buffer> {
  return Buffer.from(await store.claim(KEY, randomBytes(32).toString('hex')), 'hex');
}
