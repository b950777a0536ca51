import type { Clock } from '../clock.js';
import type { EventEnvelope } from '../events/types.js';
import type { NewTranscriptRecord, TranscriptRepository } from '../transcript/records.js';
import { boundRecord } from '../transcript/bound-record.js';
import { newRecordId } from './ids.js';
import type { TranscriptSink } from './ports.js';
import type { WriteChain } from '../write-chain.js';

/** Streamed text waits at most this long before it is written, so a crash loses little of it. */
const TEXT_FLUSH_MS = 250;

type ChunkKind = 'user_prompt' | 'agent_message' | 'agent_thought';

interface Pending {
  kind: ChunkKind;
  promptId: string | null;
  at: number;
  text: string;
  blocks: Record<string, unknown>[];
  meta: Record<string, unknown>;
}

/** Records waiting for one store write; `position` is the chain's count when it was submitted. */
interface Batch {
  readonly records: NewTranscriptRecord[];
  position: number;
}

const CHUNK_KINDS: Record<string, ChunkKind> = {
  user_message_chunk: 'user_prompt',
  agent_message_chunk: 'agent_message',
  agent_thought_chunk: 'agent_thought',
};

/**
 * Turns a session's events into transcript records as the turn runs:
 * message chunks are coalesced into one record per message; tool calls,
 * results, permissions, model switches, metadata and approval-mode changes,
 * rewinds and turn ends each become one record with a stable id.
 */
export class TranscriptRecorder implements TranscriptSink {
  private pending: Pending | null = null;
  private timer: NodeJS.Timeout | null = null;
  private degraded = false;
  /** The write not yet started, while records may still join it. */
  private batch: Batch | null = null;

  constructor(
    private readonly sessionId: string,
    private readonly repo: TranscriptRepository,
    private readonly clock: Clock,
    /** The session's ordered writes: events are recorded in the order they were published. */
    private readonly writes: WriteChain,
    /** Told once when a write fails, so the session can publish `session_recording_degraded`. */
    private readonly onWriteFailed: () => void = () => {},
  ) {}

  observe(e: EventEnvelope): void {
    const promptId = e.promptId ?? null;
    switch (e.type) {
      case 'session_update':
        return this.update(e.data.update as Record<string, unknown> | undefined, promptId);
      case 'permission_request':
        return this.write('permission_request', promptId, {
          requestId: e.data.requestId,
          toolCall: e.data.toolCall,
          options: e.data.options,
        });
      case 'permission_resolved':
        return this.write('permission_outcome', promptId, {
          requestId: e.data.requestId,
          outcome: e.data.outcome,
          ...(e.data.reason ? { reason: e.data.reason } : {}),
          ...(e.data.voterClientId ? { voterClientId: e.data.voterClientId } : {}),
        });
      case 'model_switched':
        return this.write('model_switch', promptId, { modelId: e.data.modelId });
      case 'model_switch_failed':
        return this.write('model_switch', promptId, { requestedModelId: e.data.requestedModelId, error: e.data.error });
      case 'session_metadata_updated':
        return this.write('metadata', promptId, { ...e.data, sessionId: undefined });
      case 'approval_mode_changed':
        return this.write('approval_mode', promptId, { previous: e.data.previous, next: e.data.next, persisted: e.data.persisted === true });
      case 'turn_complete': {
        // The branch point's assistantRecordUuid is this record's id: a rewind finds the turn's end by it (sessions/rewind.ts).
        const branchPoint = e.data.branchPoint as { assistantRecordUuid?: string } | undefined;
        return this.write(
          'turn_end',
          promptId,
          {
            stopReason: e.data.stopReason,
            ...(e.data.promptCancelled ? { promptCancelled: e.data.promptCancelled } : {}),
            ...(e.data.usage ? { usage: e.data.usage } : {}),
            ...(branchPoint ? { branchPoint } : {}),
          },
          branchPoint?.assistantRecordUuid,
        );
      }
      case 'turn_error':
        return this.write('turn_end', promptId, {
          error: { message: e.data.message, code: e.data.code, errorKind: e.data.errorKind },
        });
      case 'session_rewound':
        return this.write('rewind', promptId, { ...e.data, sessionId: undefined });
      case 'module_message':
        return this.write('module_message', promptId, { ...e.data });
      case 'mid_turn_message_injected':
        return this.midTurn(e.data, promptId);
      default:
        return;
    }
  }

  /** Each message typed during the turn, where the model got it: its own record, not a turn's opening `user_prompt`. */
  private midTurn(data: Record<string, unknown>, promptId: string | null): void {
    const ids = Array.isArray(data.messageIds) ? data.messageIds : [];
    const items = Array.isArray(data.items) ? (data.items as { content?: unknown }[]) : [];
    items.forEach((item, i) => this.write('mid_turn_message', promptId, { messageId: ids[i], content: item?.content ?? [] }));
  }

  private update(update: Record<string, unknown> | undefined, promptId: string | null): void {
    if (!update) return;
    const kind = update.sessionUpdate as string;
    const chunk = CHUNK_KINDS[kind];
    if (chunk) return this.chunk(chunk, update, promptId);
    if (kind === 'tool_call') {
      const meta = (update._meta ?? {}) as Record<string, unknown>;
      return this.write('tool_call', promptId, {
        toolCallId: update.toolCallId,
        name: meta.toolName,
        title: update.title,
        kind: update.kind,
        args: update.rawInput ?? {},
        locations: update.locations ?? [],
      });
    }
    if (kind === 'tool_call_update' && (update.status === 'completed' || update.status === 'failed')) {
      return this.write('tool_result', promptId, {
        toolCallId: update.toolCallId,
        status: update.status,
        content: update.content ?? [],
        rawOutput: update.rawOutput ?? null,
      });
    }
    if (kind === 'plan') return this.write('plan', promptId, { entries: update.entries ?? [] });
    if (kind === 'context_compacted') {
      const { summary, keptTurns, reason, tokensBefore, tokensAfter } = update;
      return this.write('compaction', promptId, { summary, keptTurns, reason, tokensBefore, tokensAfter });
    }
  }

  private chunk(kind: ChunkKind, update: Record<string, unknown>, promptId: string | null): void {
    const content = update.content as Record<string, unknown> | undefined;
    const meta = (update._meta ?? {}) as Record<string, unknown>;
    const p = this.pending;
    if (p && (p.kind !== kind || p.promptId !== promptId)) this.writeBuffered();
    const cur: Pending = (this.pending ??= { kind, promptId, at: this.clock.now(), text: '', blocks: [], meta: {} });
    if (kind === 'user_prompt') {
      if (content) cur.blocks.push(content);
    } else if (content?.type === 'text' && typeof content.text === 'string') {
      cur.text += content.text;
    }
    if (meta.usage) cur.meta.usage = meta.usage;
    if (!this.timer) {
      this.timer = setTimeout(() => this.writeBuffered(), TEXT_FLUSH_MS);
      this.timer.unref?.();
    }
  }

  /** Writes what is buffered (the message so far); resolves once every write submitted so far has settled. */
  flush(): Promise<void> {
    this.writeBuffered();
    return this.writes.flush();
  }

  private writeBuffered(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const p = this.pending;
    if (!p) return;
    this.pending = null;
    const data: Record<string, unknown> =
      p.kind === 'user_prompt' ? { content: p.blocks } : { text: p.text, ...(p.meta.usage ? { usage: p.meta.usage } : {}) };
    if (p.kind !== 'user_prompt' && p.text === '' && !p.meta.usage) return;
    this.append({ sessionId: this.sessionId, recordId: newRecordId(), kind: p.kind, promptId: p.promptId, at: p.at, data });
  }

  private write(kind: string, promptId: string | null, data: Record<string, unknown>, recordId = newRecordId()): void {
    this.writeBuffered();
    this.append({ sessionId: this.sessionId, recordId, kind, promptId, at: this.clock.now(), data });
  }

  /**
   * Records are stored after the I/O of the moment they were made (`submitOrdered` after I/O), so the frame
   * of the event they record — a `turn_complete` above all — reaches its streams first
   * (docs/architecture.md, How a prompt flows: the transcript is stored after `turn_complete`).
   * Records made meanwhile join the same write, one transaction, as long as no other write of the
   * session was submitted after it (the chain's order is the order of events).
   */
  private append(record: NewTranscriptRecord): void {
    const bounded = boundRecord(record);
    const open = this.batch;
    if (open && open.position === this.writes.submitted) {
      open.records.push(bounded);
      return;
    }
    const batch: Batch = { records: [bounded], position: 0 };
    this.writes.submitOrdered('transcript write', async () => {
      if (this.batch === batch) this.batch = null;
      try {
        await this.repo.append(batch.records);
      } catch (err) {
        if (!this.degraded) {
          this.degraded = true;
          this.onWriteFailed();
        }
        throw err;
      }
    }, true);
    batch.position = this.writes.submitted;
    this.batch = batch;
  }

  get recordingDegraded(): boolean {
    return this.degraded;
  }
}
