import * as acp from '@agentclientprotocol/sdk';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClientSide } from './connection.js';
import type { AgentLink } from './link.js';

/**
 * Which ACP session of its agent a Berth session last spoke to, kept under the
 * Berth home (outside the agent's reach) so a load after a daemon restart can
 * ask the agent to `session/load` it rather than start over.
 */
export class AgentSessionRecord {
  private readonly file: string;

  constructor(berthHome: string, agentId: string, berthSessionId: string) {
    const dir = join(berthHome, 'agents', agentId, 'sessions');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.file = join(dir, berthSessionId);
  }

  read(): string | undefined {
    try {
      const id = readFileSync(this.file, 'utf8').trim();
      return id === '' ? undefined : id;
    } catch {
      return undefined;
    }
  }

  write(acpSessionId: string): void {
    writeFileSync(this.file, acpSessionId + '\n', { mode: 0o600 });
  }
}

/**
 * Points a running link at an earlier ACP session through `session/load`
 * when the agent can load; false when it cannot or refuses (the caller then
 * seeds a fresh session with the transcript). The history the agent replays
 * while loading goes nowhere: the client already has it from Berth.
 */
export async function loadEarlierSession(link: AgentLink, earlier: string | undefined, cwd: string, side: ClientSide): Promise<boolean> {
  if (earlier === undefined || !link.canLoad || earlier === link.sessionId) return false;
  link.host.bind(earlier, side);
  try {
    await Promise.race([link.connection.agent.request('session/load', { sessionId: earlier, cwd, ...link.opening }), link.died]);
  } catch (err) {
    link.host.release(earlier);
    if (err instanceof acp.RequestError) return false;
    throw err;
  }
  link.host.release(link.sessionId);
  link.sessionId = earlier;
  return true;
}
