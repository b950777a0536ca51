import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../clock.js';
import type { Core } from '../core.js';
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

function callerKey(headers: IncomingHttpHeaders, ip: string): string {
  const raw = headers['x-qwen-client-id'];
  const id = Array.isArray(raw) ? raw[0] : raw;
  return id !== undefined && CLIENT_ID_PATTERN.test(id) ? `client:${id}` : `addr:${ip}`;
}

/** What the limiter says of one request: the `X-RateLimit-*` headers it carries, and its refusal when over the limit. */
export interface RateVerdict {
  readonly headers: Readonly<Record<string, string>>;
  readonly refusal: BerthError | null;
}

/** Counts a request in its tier's window; `undefined` for one no tier limits. */
export type RateLimiter = (method: string, url: string, headers: IncomingHttpHeaders, ip: string) => RateVerdict | undefined;

/** The limiter of `options.tiers`, or `undefined` when none is configured. */
export function rateLimiter(options: RateLimitOptions): RateLimiter | undefined {
  if (options.tiers.length === 0) return undefined;
  const byTier = new Map<TierName, RateWindows>();
  for (const t of options.tiers) byTier.set(t.tier, new RateWindows(t, options.maxKeys));
  let hits = 0;
  options.health?.contribute(() => ({ rateLimitHits: hits }));

  return (method, url, headers, ip) => {
    const path = url.split('?')[0]!;
    if (path === '/health') return undefined;
    const tier = tiersOf(method, path)
      .map((name) => byTier.get(name))
      .find((w) => w !== undefined);
    if (!tier) return undefined;
    const now = options.clock.now();
    const verdict = tier.hit(callerKey(headers, ip), now);
    const limit = { 'x-ratelimit-limit': String(tier.limit.max), 'x-ratelimit-reset': String(Math.ceil(verdict.resetAt / 1000)) };
    if (verdict.allowed) return { headers: { ...limit, 'x-ratelimit-remaining': String(verdict.remaining) }, refusal: null };
    hits += 1;
    const retryAfterSeconds = Math.max(1, Math.ceil(verdict.retryAfterMs / 1000));
    return {
      headers: { ...limit, 'x-ratelimit-remaining': '0' },
      refusal: new BerthError('rate_limit_exceeded', 'Rate limit exceeded', {
        tier: tier.limit.tier,
        retryAfterMs: verdict.retryAfterMs,
        retryAfterSeconds,
        limit: tier.limit.max,
        windowMs: tier.limit.windowMs,
      }),
    };
  };
}

/** The daemon's limiter (`--rate-limit`), one per daemon: the hook and forwarded requests count in the same windows. */
export function httpRateLimiter(core: Pick<Core, 'config' | 'clock' | 'health'>): RateLimiter | undefined {
  return rateLimiter({ tiers: core.config.rateLimits, clock: core.clock, health: core.health });
}

/** Installs the limiter as an onRequest hook; call it after the security checks, so only authorised requests count. */
export function installRateLimit(app: FastifyInstance, limiter: RateLimiter | undefined): void {
  if (limiter === undefined) return;
  app.addHook('onRequest', async (request, reply) => {
    const verdict = limiter(request.method, request.url, request.headers, request.ip);
    if (verdict === undefined) return undefined;
    reply.headers(verdict.headers);
    return verdict.refusal ? sendError(reply, verdict.refusal) : undefined;
  });
}
