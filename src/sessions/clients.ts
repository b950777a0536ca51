import { BerthError } from '../errors/index.js';
import { newClientId } from './ids.js';

interface ClientEntry {
  registrations: number;
  lastSeenAt: number;
}

/**
 * Daemon-issued client ids of one session (spec §2.6). A create/load/resume
 * mints `client_<uuid>` unless the caller presented an id already registered
 * here, which is reused; an unregistered id presented on a session route is
 * `invalid_client_id` (the SDK's self-heal depends on exactly that).
 */
export class ClientRegistry {
  private readonly clients = new Map<string, ClientEntry>();

  constructor(private readonly sessionId: string) {}

  attach(requested: string | undefined, now: number): string {
    if (requested !== undefined) {
      const existing = this.clients.get(requested);
      if (existing) {
        existing.registrations += 1;
        existing.lastSeenAt = now;
        return requested;
      }
    }
    const id = newClientId();
    this.clients.set(id, { registrations: 1, lastSeenAt: now });
    return id;
  }

  has(clientId: string): boolean {
    return this.clients.has(clientId);
  }

  /** Throws `invalid_client_id` for a well-formed id that is not registered on this session. */
  require(clientId: string | undefined): void {
    if (clientId === undefined || this.clients.has(clientId)) return;
    throw new BerthError(
      'invalid_client_id',
      `Client id "${clientId}" is not registered for session ${this.sessionId}`,
      { sessionId: this.sessionId, clientId },
    );
  }

  touch(clientId: string, now: number): void {
    const c = this.clients.get(clientId);
    if (c) c.lastSeenAt = now;
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
