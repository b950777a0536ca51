import type { AgentDriver } from '../agents/driver.js';
import type { PublishInput } from '../events/types.js';
import type { ApprovalMode } from './approval.js';
import { bindPr, normalizeDisplayName, type SessionPr } from './metadata.js';
import type { SessionRowWriter } from './session-row.js';

/** A session's name and pull requests as they stand after a change. */
export interface SessionMetadata {
  readonly displayName: string | null;
  readonly prs: readonly SessionPr[];
}

/**
 * Changes a client makes to a live session besides prompting: its name and
 * pull requests (docs/client-api.md §5.6), its model (docs/client-api.md §5.7) and its approval mode. Each is persisted
 * and published so passive subscribers see it. Held by its `Session` only.
 */
export class SessionSettings {
  private name: string | null;
  private boundPrs: readonly SessionPr[];
  private mode: ApprovalMode;

  constructor(
    private readonly ports: {
      readonly sessionId: string;
      readonly row: SessionRowWriter;
      readonly driver: Pick<AgentDriver, 'setModel' | 'state'>;
      publish(input: PublishInput): void;
    },
    initial: { readonly displayName: string | null; readonly prs: readonly SessionPr[]; readonly approvalMode: ApprovalMode },
  ) {
    this.name = initial.displayName;
    this.boundPrs = [...initial.prs];
    this.mode = initial.approvalMode;
  }

  get approvalMode(): ApprovalMode {
    return this.mode;
  }

  /**
   * Changes the approval mode mid-session (qwen serve's `POST /session/{id}/approval-mode`):
   * stored in the session row (so a restart keeps it), published as `approval_mode_changed`
   * and so recorded in the transcript. Berth keeps no workspace-wide mode, so `persisted` is
   * false: qwen's `persist` (write it to the workspace settings) is not done.
   */
  setApprovalMode(next: ApprovalMode, clientId: string | undefined): Promise<{ previous: ApprovalMode; mode: ApprovalMode; persisted: false }> {
    const { sessionId, row, publish } = this.ports;
    return row.write(() => ({
      patch: { approvalMode: next },
      apply: () => {
        const previous = this.mode;
        this.mode = next;
        publish({ type: 'approval_mode_changed', originatorClientId: clientId, data: { sessionId, previous, next, persisted: false } });
        return { previous, mode: next, persisted: false as const };
      },
    }));
  }

  get displayName(): string | null {
    return this.name;
  }

  get prs(): readonly SessionPr[] {
    return this.boundPrs;
  }

  /** Renames and binds pull requests; stored before it shows (`SessionRowWriter.write`). */
  async updateMetadata(input: { displayName?: unknown; pr?: SessionPr }, clientId: string | undefined): Promise<SessionMetadata> {
    const { sessionId, row, publish } = this.ports;
    const displayName = input.displayName !== undefined ? normalizeDisplayName(input.displayName) : undefined;
    if (displayName === undefined && input.pr === undefined) return { displayName: this.name, prs: this.boundPrs };
    return row.write(() => {
      const prs = input.pr !== undefined ? bindPr(this.boundPrs, input.pr) : undefined;
      return {
        patch: { ...(displayName !== undefined && { displayName, titleSource: 'manual' as const }), ...(prs !== undefined && { prs }) },
        apply: () => {
          if (displayName !== undefined) {
            this.name = displayName;
            publish({ type: 'session_metadata_updated', originatorClientId: clientId, data: { sessionId, displayName, titleSource: 'manual' } });
          }
          if (prs !== undefined) {
            this.boundPrs = prs;
            // The SDK reducer reads displayName from every metadata event, so PR changes carry it too.
            publish({
              type: 'session_metadata_updated',
              originatorClientId: clientId,
              data: { sessionId, prs, ...(this.name ? { displayName: this.name } : {}) },
            });
          }
          return { displayName: this.name, prs: this.boundPrs };
        },
      };
    });
  }

  /** Switches the driver's model; returns the model now current. A refusal is published, then thrown. */
  async switchModel(modelId: string, clientId: string | undefined): Promise<string> {
    const { sessionId, row, driver, publish } = this.ports;
    const previous = driver.state().models.currentModelId;
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
    try {
      await row.write(() => ({ patch: { modelId: current }, apply: () => undefined }));
    } catch (err) {
      // Not stored, so not switched: the driver goes back to the model the row still names.
      if (previous !== null && previous !== current) await driver.setModel(previous).catch(() => undefined);
      throw err;
    }
    publish({ type: 'model_switched', originatorClientId: clientId, data: { sessionId, modelId: current } });
    return current;
  }
}
