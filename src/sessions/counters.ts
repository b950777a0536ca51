import type { Session } from './session.js';

/** The sessions' fields of deep health; the HTTP face checks them against OpenAPI `HealthResponse`. */
export type SessionHealthCounters = {
  readonly sessions: number;
  readonly pendingPermissions: number;
  readonly activePrompts: number;
  readonly activeWork: boolean;
  readonly activeWorkReporting: 'full' | 'partial' | 'none';
  readonly activeWorkStaleMs: number;
  readonly connectedClients: number;
  readonly channelAlive: boolean;
  readonly lastActivityAt: string | null;
  readonly idleSinceMs: number | null;
};

/** The sessions' part of deep health (`GET /health?deep=1`, docs/client-api.md §12). */
export function sessionCounters(sessions: readonly Session[], now: number): SessionHealthCounters {
  let pendingPermissions = 0;
  let activePrompts = 0;
  let connectedClients = 0;
  let lastActivity = 0;
  for (const s of sessions) {
    pendingPermissions += s.interactions.pending().length;
    if (s.runningPromptId() !== undefined) activePrompts += 1;
    connectedClients += s.bus.subscriberCount;
    lastActivity = Math.max(lastActivity, s.lastActivityAt);
  }
  return {
    sessions: sessions.length,
    pendingPermissions,
    activePrompts,
    activeWork: activePrompts > 0,
    activeWorkReporting: 'full',
    activeWorkStaleMs: 0,
    connectedClients,
    channelAlive: true,
    lastActivityAt: lastActivity > 0 ? new Date(lastActivity).toISOString() : null,
    idleSinceMs: activePrompts > 0 ? 0 : lastActivity > 0 ? Math.max(0, now - lastActivity) : null,
  };
}
