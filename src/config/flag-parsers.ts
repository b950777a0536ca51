import { ConfigError, type RateLimitTier } from './config.js';

/** Parses one `--remote-workspace ID[=INTENTION]` value. */
export function parseRemoteWorkspace(text: string): { id: string; intention?: string } {
  const eq = text.indexOf('=');
  return eq < 0 ? { id: text } : { id: text.slice(0, eq), intention: text.slice(eq + 1) };
}

/** Parses `--rate-limit` text such as `prompt=10/60s,default=120/60s`. */
export function parseRateLimits(text: string): RateLimitTier[] {
  const tiers: RateLimitTier[] = [];
  for (const part of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^(prompt|session|read|default)=(\d+)\/(\d+)(ms|s|m)?$/.exec(part);
    if (!m) throw new ConfigError(`--rate-limit parts look like prompt=10/60s; got ${part}`);
    const unit = m[4] === 'ms' ? 1 : m[4] === 'm' ? 60_000 : 1000;
    tiers.push({ tier: m[1] as RateLimitTier['tier'], max: Number(m[2]), windowMs: Number(m[3]) * unit });
  }
  return tiers;
}
