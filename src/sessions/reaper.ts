import type { Clock } from '../clock.js';
import type { Config } from '../config/config.js';
import type { Session } from './session.js';

/**
 * Idle reaping (docs/client-api.md §5.10): a live session with no open event
 * stream, no running or queued prompt, no open interaction and no client
 * activity for `--session-idle-timeout-ms` is closed with `idle_timeout`;
 * its transcript stays loadable.
 */
export function isIdle(session: Session, now: number, timeoutMs: number): boolean {
  const busy = session.hasActivePrompt || session.interactions.pending().length > 0 || session.bus.subscriberCount > 0;
  const lastSeen = Math.max(session.lastActivityAt, session.clients.lastSeenAt());
  return !busy && now - lastSeen >= timeoutMs;
}

/** Closes the idle sessions among `sessions`; returns how many. */
export function reapIdle(sessions: readonly Session[], now: number, timeoutMs: number): number {
  let reaped = 0;
  for (const s of sessions) {
    if (!isIdle(s, now, timeoutMs)) continue;
    s.close('idle_timeout', null);
    reaped += 1;
  }
  return reaped;
}

/** Checks every `--session-reap-interval-ms`; a timeout of 0 never reaps. Stop it on shutdown. */
export function startIdleReaper(list: () => readonly Session[], config: Config, clock: Clock): { stop(): void } {
  const { sessionIdleTimeoutMs, sessionReapIntervalMs } = config;
  if (sessionIdleTimeoutMs === 0) return { stop() {} };
  const timer = setInterval(() => reapIdle(list(), clock.now(), sessionIdleTimeoutMs), sessionReapIntervalMs);
  timer.unref?.();
  return { stop: () => clearInterval(timer) };
}
