import type { Clock } from '../clock.js';
import { MAX_APP_CONNECTIONS } from './limits.js';
import { BerthError } from '../protocol/errors/index.js';
import type { Logger } from '../log.js';
import type { ApplicationToolRegistry } from '../tools/application-registry.js';
import { ApplicationSession, type ApplicationIdentity } from './app-session.js';
import { DefinitionCache } from './definition-cache.js';
import type { FrameSocket } from './host-connection.js';

export interface ToolProtocolHostDeps {
  readonly registry: ApplicationToolRegistry;
  readonly clock: Clock;
  readonly log: Logger;
  readonly maxConnections?: number;
}

/** RFC 6455 §7.4.1: the endpoint is going away (daemon shutdown). */
const CLOSE_GOING_AWAY = 1001;

/**
 * Every connected application of one daemon (or one `berth connect` owner).
 * One live connection per application name and workspace: a newer one
 * replaces the older (an app that reconnects after a network change should
 * not wait for the dead socket to time out). Definition caches are kept per
 * application name across its connections.
 */
export class ToolProtocolHost {
  private readonly sessions = new Set<ApplicationSession>();
  private readonly current = new Map<string, ApplicationSession>();
  private readonly caches = new Map<string, DefinitionCache>();
  private shuttingDown = false;

  constructor(private readonly deps: ToolProtocolHostDeps) {}

  get size(): number {
    return this.sessions.size;
  }

  /** Refuses a connection before the upgrade when the daemon holds all it may (429). */
  assertRoom(): void {
    const max = this.deps.maxConnections ?? MAX_APP_CONNECTIONS;
    if (this.shuttingDown) throw new BerthError('daemon_shutdown');
    if (this.sessions.size >= max) {
      throw new BerthError('application_limit_exceeded', `At most ${max} applications may be connected at once`, { limit: max });
    }
  }

  /** A new, authenticated application socket bound to `workspaceId`. The caller feeds it frames and its close. */
  attach(socket: FrameSocket, identity: ApplicationIdentity, workspaceId: string): ApplicationSession {
    const session = new ApplicationSession(socket, {
      registry: this.deps.registry,
      clock: this.deps.clock,
      log: this.deps.log,
      cache: this.cacheFor(identity.appName),
      workspaceId,
      identity,
    });
    const key = `${workspaceId}\u0000${identity.appName}`;
    this.current.get(key)?.supersede();
    this.current.set(key, session);
    this.sessions.add(session);
    this.deps.log.info({ application: identity.appName, workspaceId }, 'application connected');
    void session.start();
    return session;
  }

  /** The socket of `session` closed with `code`. */
  detach(session: ApplicationSession, code: number): void {
    if (!this.sessions.delete(session)) return;
    session.closed(code);
    const key = `${session.workspaceId}\u0000${session.applicationId}`;
    if (this.current.get(key) === session) this.current.delete(key);
    this.deps.log.info({ application: session.applicationId, code }, 'application disconnected');
  }

  /** Closes every application socket (1001); their tools become unavailable. */
  shutdown(): void {
    this.shuttingDown = true;
    for (const session of [...this.sessions]) session.close(CLOSE_GOING_AWAY, 'daemon shutting down');
  }

  private cacheFor(appName: string): DefinitionCache {
    let cache = this.caches.get(appName);
    if (!cache) {
      cache = new DefinitionCache();
      this.caches.set(appName, cache);
    }
    return cache;
  }
}
