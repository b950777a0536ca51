import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Policy } from '../tools/types.js';

export type { Policy };

/** Who a bearer token speaks for (docs/architecture.md, Security: token scopes). */
export type TokenIdentity =
  | { readonly scope: 'owner' }
  | { readonly scope: 'channel'; readonly tokenId: string; readonly workspaceId: string }
  | { readonly scope: 'app'; readonly tokenId: string; readonly appName: string; readonly maxPolicy: Policy };

/** A minted token as stored: its hash, never the token itself. */
export interface StoredToken {
  readonly id: string;
  readonly hash: string;
  readonly scope: 'channel' | 'app';
  readonly workspaceId: string | null;
  readonly appName: string | null;
  readonly maxPolicy: Policy | null;
}

/** Where minted tokens are kept (the store implements it). */
export interface TokenRepository {
  insert(token: StoredToken, createdAt: number): Promise<void>;
  /** The token with this hash, unless revoked. */
  findActive(hash: string): Promise<StoredToken | undefined>;
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
  constructor(
    private readonly repo: TokenRepository,
    private readonly ownerToken: string | null,
  ) {}

  get hasOwnerToken(): boolean {
    return this.ownerToken !== null;
  }

  createChannelToken(workspaceId: string, now = Date.now()): Promise<{ id: string; token: string }> {
    return this.insert('berth_ch_', { scope: 'channel', workspaceId, appName: null, maxPolicy: null }, now);
  }

  createAppToken(appName: string, maxPolicy: Policy, now = Date.now()): Promise<{ id: string; token: string }> {
    return this.insert('berth_app_', { scope: 'app', workspaceId: null, appName, maxPolicy }, now);
  }

  private async insert(
    prefix: string,
    grant: Omit<StoredToken, 'id' | 'hash'>,
    now: number,
  ): Promise<{ id: string; token: string }> {
    const token = prefix + randomBytes(32).toString('base64url');
    const hash = sha256(token).toString('hex');
    const id = hash.slice(0, 12);
    await this.repo.insert({ id, hash, ...grant }, now);
    return { id, token };
  }

  /** Recognises a presented bearer token, or returns null when it is nobody's. */
  async identify(bearer: string): Promise<TokenIdentity | null> {
    if (this.ownerToken !== null && secretsEqual(bearer, this.ownerToken)) return { scope: 'owner' };
    // Lookup by hash: the stored value is a digest, so the comparison leaks nothing about the token.
    const hash = sha256(bearer).toString('hex');
    const row = await this.repo.findActive(hash);
    if (!row) return null;
    if (row.scope === 'channel') return { scope: 'channel', tokenId: row.id, workspaceId: row.workspaceId! };
    return { scope: 'app', tokenId: row.id, appName: row.appName!, maxPolicy: row.maxPolicy! };
  }
}

/** Parses `Authorization: Bearer <token>` (scheme case-insensitive, spaces or tabs between, docs/client-api.md §1.1). */
export function bearerOf(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return m ? m[1]! : null;
}
