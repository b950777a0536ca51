import type { AgentDriver } from '../agents/driver.js';
import type { PublishInput } from '../events/types.js';
import { bindPr, normalizeDisplayName, type SessionPr } from './metadata.js';
import type { SessionRowWriter } from './session-row.js';

/** A session's name and pull requests as they stand after a change. */
export interface SessionMetadata {
  readonly displayName: string | null;
  readonly prs: readonly SessionPr[];
}

/**
 * Changes a client makes to a live session besides prompting: its name and
 * pull requests (docs/client-api.md §5.6) and its model (docs/client-api.md §5.7). Each is persisted
 * and published so passive subscribers see it. Held by its `Session` only.
 */
export class SessionSettings {
  private name: string | null;
  private boundPrs: readonly SessionPr[];

  constructor(
    private readonly ports: {
      readonly sessionId: string;
      readonly row: SessionRowWriter;
      readonly driver: Pick<AgentDriver, 'setModel' | 'state'>;
      publish(input: PublishInput): void;
    },
    initial: { readonly displayName: string | null; readonly prs: readonly SessionPr[] },
  ) {
    this.name = initial.displayName;
    this.boundPrs = [...initial.prs];
  }

  get displayName(): string | null {
    return this.name;
  }

  get prs(): readonly SessionPr[] {
    return this.boundPrs;
  }

  updateMetadata(input: { displayName?: unknown; pr?: SessionPr }, clientId: string | undefined): SessionMetadata {
    const { sessionId, row, publish } = this.ports;
    const displayName = input.displayName !== undefined ? normalizeDisplayName(input.displayName) : undefined;
    const prs = input.pr !== undefined ? bindPr(this.boundPrs, input.pr) : undefined;
    if (displayName !== undefined) {
      this.name = displayName;
      row.changed({ displayName, titleSource: 'manual' });
      publish({
        type: 'session_metadata_updated',
        originatorClientId: clientId,
        data: { sessionId, displayName, titleSource: 'manual' },
      });
    }
    if (prs !== undefined) {
      this.boundPrs = prs;
      row.changed({ prs });
      // The SDK reducer reads displayName from every metadata event, so PR changes carry it too.
      publish({
        type: 'session_metadata_updated',
        originatorClientId: clientId,
        data: { sessionId, prs, ...(this.name ? { displayName: this.name } : {}) },
      });
    }
    return { displayName: this.name, prs: this.boundPrs };
  }

  /** Switches the driver's model; returns the model now current. A refusal is published, then thrown. */
  async switchModel(modelId: string, clientId: string | undefined): Promise<string> {
    const { sessionId, row, driver, publish } = this.ports;
    try {
      await driver.setModel(modelId);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      publish({
        type: 'model_switch_failed',
        originatorClientId: clientId,
        data: { sessionId, requestedModelId: modelId, error: message },
      });
      throw err;
    }
    const current = driver.state().models.currentModelId ?? modelId;
    row.changed({ modelId: current });
    publish({ type: 'model_switched', originatorClientId: clientId, data: { sessionId, modelId: current } });
    return current;
  }
}
