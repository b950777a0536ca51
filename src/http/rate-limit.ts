import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import type { RateLimitTier } from '../config/config.js';
import { CLIENT_ID_PATTERN, MAX_RATE_LIMIT_KEYS } from './limits.js';
import { BerthError } from '../protocol/errors/index.js';
import type { HealthRegistry } from '../health.js';
import { sendError } from './errors.js';

/**
 * `--rate-limit` (docs/client-api.md §6.1, §13.2): fixed windows per tier and per caller.
 * A caller is its `X-Qwen-Client-Id` when it sends a well-formed one, else its
 * remote address (the id is self-reported, as everywhere in the contract).
 * Over the limit a request gets 429 `rate_limit_exceeded` with `tier`,
 * `retryAfterMs`, `Retry-After`, `X-RateLimit-Limit`, `X-RateLimit-Remaining: 0`
 * and `X-RateLimit-Reset` (epoch seconds); requests under it carry the same
 * three `X-RateLimit-*` headers. `/health` is never limited: probes must see a
 * live daemon.
 */

export type TierName = RateLimitTier['tier'];

/** The tiers a request belongs to, most specific first; `default` catches everything. */
export function tiersOf(method: string, path: string): readonly TierName[] {
  if (method === 'POST' && /^\/session\/[^/]+\/prompt$/.test(path)) return ['prompt', 'default'];
  if (method === 'POST' && (path === '/session' || /^\/session\/[^/]+\/(load|resume)$/.test(path))) {
    return ['session', 'default'];
  }
  if (method === 'GET' || method === 'HEAD') return ['read', 'default'];
  return ['default'];
}

export type WindowVerdict =
  | { readonly allowed: true; readonly remaining: number; readonly resetAt: number }
  | { readonly allowed: false; readonly retryAfterMs: number; readonly resetAt: number };

interface Window {
  count: number;
  readonly resetAt: number;
}

/**
 * One tier's counters: a window per caller key, opened by its first request.
 * The table holds at most `maxKeys` callers, so many distinct clients cannot
 * grow memory without bound. Windows of one tier all have the same length, so
 * insertion order is expiry order: ended windows are dropped from the front,
 * and when every window is still open the oldest one makes room (that caller
 * simply starts a fresh window).
 */
export class RateWindows {
  private readonly windows = new Map<string, Window>();

  constructor(
    readonly limit: RateLimitTier,
    private readonly maxKeys: number = MAX_RATE_LIMIT_KEYS,
  ) {}

  get size(): number {
    return this.windows.size;
  }

  hit(key: string, now: number): WindowVerdict {
    let w = this.windows.get(key);
    if (w && now >= w.resetAt) {
      this.windows.delete(key);
      w = undefined;
    }
    if (!w) {
      this.makeRoom(now);
      w = { count: 0, resetAt: now + this.limit.windowMs };
      this.windows.set(key, w);
    }
    if (w.count >= this.limit.max) return { allowed: false, retryAfterMs: w.resetAt - now, resetAt: w.resetAt };
    w.count += 1;
    return { allowed: true, remaining: this.limit.max - w.count, resetAt: w.resetAt };
  }

  private makeRoom(now: number): void {
    for (const [key, w] of this.windows) {
      if (now < w.resetAt && this.windows.size < this.maxKeys) return;
      this.windows.delete(key);
    }
  }
}

export interface RateLimitOptions {
  readonly tiers: readonly RateLimitTier[];
  readonly clock: Clock;
  /** Deep health reports `rateLimitHits` (docs/client-api.md §12). */
  readonly health?: HealthRegistry;
  readonly maxKeys?: number;
}

function callerKey(request: FastifyRequest): string {
  const raw = request.headers['x-qwen-client-id'];
  const id = Array.isArray(raw) ? raw[0] : raw;
  return id !== undefined && CLIENT_ID_PATTERN.test(id) ? `client:${id}` : `addr:${request.ip}`;
}

/** Installs the limiter as an onRequest hook; call it after the security checks, so only authorised requests count. */
export function installRateLimit(app: FastifyInstance, options: RateLimitOptions): void {
  if (options.tiers.length === 0) return;
  const byTier = new Map<TierName, RateWindows>();
  for (const t of options.tiers) byTier.set(t.tier, new RateWindows(t, options.maxKeys));
  let hits = 0;
  options.health?.contribute(() => ({ rateLimitHits: hits }));

  app.addHook('onRequest', async (request, reply) => {
    const path = request.url.split('?')[0]!;
    if (path === '/health') return undefined;
    const tier = tiersOf(request.method, path)
      .map((name) => byTier.get(name))
      .find((w) => w !== undefined);
    if (!tier) return undefined;
    const now = options.clock.now();
    const verdict = tier.hit(callerKey(request), now);
    reply.header('X-RateLimit-Limit', String(tier.limit.max));
    reply.header('X-RateLimit-Reset', String(Math.ceil(verdict.resetAt / 1000)));
    if (verdict.allowed) {
      reply.header('X-RateLimit-Remaining', String(verdict.remaining));
      return undefined;
    }
    hits += 1;
    reply.header('X-RateLimit-Remaining', '0');
    const retryAfterSeconds = Math.max(1, Math.ceil(verdict.retryAfterMs / 1000));
    return sendError(
      reply,
      new BerthError('rate_limit_exceeded', 'Rate limit exceeded', {
        tier: tier.limit.tier,
        retryAfterMs: verdict.retryAfterMs,
        retryAfterSeconds,
        limit: tier.limit.max,
        windowMs: tier.limit.windowMs,
      }),
    );
  });
}
