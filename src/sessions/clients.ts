import { MAX_CLIENTS_PER_SESSION } from './limits.js';
import { BerthError } from '../protocol/errors/index.js';
import { newClientId } from './ids.js';

interface ClientEntry {
  registrations: number;
  lastSeenAt: number;
}

/**
 * Daemon-issued client ids of one session (docs/client-api.md §2.6). A create/load/resume
 * mints `client_<uuid>` unless the caller presented an id already registered
 * here, which is reused; an unregistered id presented on a session route is
 * `invalid_client_id` (the SDK's self-heal depends on exactly that).
 * At most MAX_CLIENTS_PER_SESSION ids are held; the map is kept in order of last use, so
 * the one dropped to make room is the least recently used.
 */
export class ClientRegistry {
  private readonly clients = new Map<string, ClientEntry>();

  constructor(private readonly sessionId: string) {}

  attach(requested: string | undefined, now: number): string {
    if (requested !== undefined) {
      const existing = this.used(requested);
      if (existing) {
        existing.registrations += 1;
        existing.lastSeenAt = now;
        return requested;
      }
    }
    const id = newClientId();
    if (this.clients.size >= MAX_CLIENTS_PER_SESSION) this.clients.delete(this.clients.keys().next().value!);
    this.clients.set(id, { registrations: 1, lastSeenAt: now });
    return id;
  }

  has(clientId: string): boolean {
    return this.clients.has(clientId);
  }

  /** Throws `invalid_client_id` for a well-formed id that is not registered on this session. */
  require(clientId: string | undefined): void {
    if (clientId === undefined || this.used(clientId)) return;
    throw new BerthError(
      'invalid_client_id',
      `Client id "${clientId}" is not registered for session ${this.sessionId}`,
      { sessionId: this.sessionId, clientId },
    );
  }

  /**
   * Forgets a client that says it is leaving (`POST /session/{id}/detach`): its id stops being
   * accepted, so a later request with it gets `invalid_client_id` and the SDK re-attaches.
   */
  release(clientId: string): void {
    this.clients.delete(clientId);
  }

  touch(clientId: string, now: number): void {
    const c = this.used(clientId);
    if (c) c.lastSeenAt = now;
  }

  /** The entry of a registered id, moved to the most recently used end. */
  private used(clientId: string): ClientEntry | undefined {
    const entry = this.clients.get(clientId);
    if (entry) {
      this.clients.delete(clientId);
      this.clients.set(clientId, entry);
    }
    return entry;
  }

  get count(): number {
    return this.clients.size;
  }

  lastSeenAt(): number {
    let latest = 0;
    for (const c of this.clients.values()) latest = Math.max(latest, c.lastSeenAt);
    return latest;
  }
}
