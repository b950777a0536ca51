import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from '../store/db.js';

import type { Policy } from '../tools/types.js';

export type { Policy };

/** Who a bearer token speaks for (docs/architecture.md, Security: token scopes). */
export type TokenIdentity =
  | { readonly scope: 'owner' }
  | { readonly scope: 'channel'; readonly tokenId: string; readonly workspaceId: string }
  | { readonly scope: 'app'; readonly tokenId: string; readonly appName: string; readonly maxPolicy: Policy };

interface TokenRow {
  id: string;
  hash: string;
  scope: 'channel' | 'app';
  workspace_id: string | null;
  app_name: string | null;
  max_policy: Policy | null;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/** Compares two secrets in constant time (hashing first makes the lengths equal). */
export function secretsEqual(a: string, b: string): boolean {
  return timingSafeEqual(sha256(a), sha256(b));
}

/**
 * Issues and recognises tokens. The owner token comes from the configuration;
 * channel and application tokens are minted here and stored only as hashes.
 */
export class TokenService {
  // Prepared once: `identify` runs on every request and upgrade that carries a bearer other than the owner's.
  private readonly insertStmt;
  private readonly byHashStmt;

  constructor(
    db: Db,
    private readonly ownerToken: string | null,
  ) {
    this.insertStmt = db.prepare(
      'INSERT INTO tokens (id, hash, scope, workspace_id, app_name, max_policy, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.byHashStmt = db.prepare(
      'SELECT id, hash, scope, workspace_id, app_name, max_policy FROM tokens WHERE hash = ? AND revoked_at IS NULL',
    );
  }

  get hasOwnerToken(): boolean {
    return this.ownerToken !== null;
  }

  createChannelToken(workspaceId: string, now = Date.now()): { id: string; token: string } {
    return this.insert('berth_ch_', { scope: 'channel', workspace_id: workspaceId, app_name: null, max_policy: null }, now);
  }

  createAppToken(appName: string, maxPolicy: Policy, now = Date.now()): { id: string; token: string } {
    return this.insert('berth_app_', { scope: 'app', workspace_id: null, app_name: appName, max_policy: maxPolicy }, now);
  }

  private insert(
    prefix: string,
    row: Omit<TokenRow, 'id' | 'hash'>,
    now: number,
  ): { id: string; token: string } {
    const token = prefix + randomBytes(32).toString('base64url');
    const hash = sha256(token).toString('hex');
    const id = hash.slice(0, 12);
    this.insertStmt.run(id, hash, row.scope, row.workspace_id, row.app_name, row.max_policy, now);
    return { id, token };
  }

  /** Recognises a presented bearer token, or returns null when it is nobody's. */
  identify(bearer: string): TokenIdentity | null {
    if (this.ownerToken !== null && secretsEqual(bearer, this.ownerToken)) return { scope: 'owner' };
    // Lookup by hash: the stored value is a digest, so the comparison leaks nothing about the token.
    const hash = sha256(bearer).toString('hex');
    const row = this.byHashStmt.get(hash) as TokenRow | undefined;
    if (!row) return null;
    if (row.scope === 'channel') return { scope: 'channel', tokenId: row.id, workspaceId: row.workspace_id! };
    return { scope: 'app', tokenId: row.id, appName: row.app_name!, maxPolicy: row.max_policy! };
  }
}

/** Parses `Authorization: Bearer <token>` (scheme case-insensitive, spaces or tabs between, docs/client-api.md §1.1). */
export function bearerOf(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return m ? m[1]! : null;
}
