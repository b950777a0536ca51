import { randomUUID } from 'node:crypto';
import type { AgentDriver } from '../agents/driver.js';
import type { PublishInput } from '../events/types.js';
import { BerthError } from '../protocol/errors/index.js';
import type { CheckpointBook } from '../tools/checkpoints/records.js';
import { planRestore, restoreFiles, type RestoreReport } from '../tools/checkpoints/restore.js';
import type { TranscriptRecord, TranscriptRepository } from '../transcript/records.js';
import { historyFromRecords } from './history.js';
import type { SessionTools } from './ports.js';
import { liveRecords } from './rewound.js';
import { parseCommand } from './slash-commands.js';
import { rewindSnapshots, type RewindSnapshot } from './rewind-snapshots.js';

/**
 * The turn to rewind to (docs/client-api.md §5.13): qwen serve's `promptId` (the session goes
 * back to just before that prompt) or a `turn_complete` branch point's `checkpointUuid` (or
 * `assistantRecordUuid`: the session goes back to just after that turn).
 */
export interface RewindTarget {
  readonly promptId?: string;
  readonly checkpointUuid?: string;
  /** false: only the conversation goes back; files stay as they are. Default true. */
  readonly rewindFiles?: boolean;
}

/** qwen serve's `DaemonRewindResult`. */
export interface RewindResult extends RestoreReport {
  readonly rewound: boolean;
  /** How many turns the conversation keeps: the index of the first turn undone. */
  readonly targetTurnIndex: number;
}

/** What a rewind works on; the session lends it (sessions/spawn.ts). */
export interface RewindPorts {
  readonly sessionId: string;
  readonly transcript: Pick<TranscriptRepository, 'all' | 'ofKind' | 'lastSeq' | 'seqOf'>;
  readonly checkpoints: CheckpointBook;
  /** The session's tools without checkpointing: putting files back is not a new effect to undo. */
  readonly tools: SessionTools;
  readonly driver: Pick<AgentDriver, 'restore'>;
  runningPromptId(): string | undefined;
  /** Whether a prompt is running or queued. */
  busy(): boolean;
  publish(input: PublishInput): void;
  /** Resolves once storage holds every record published so far. */
  flushTranscript(): Promise<void>;
}

const NEVER_ABORTED = new AbortController().signal;

/**
 * Undoes the turns after the target: restores the files they changed (refusing whole when
 * someone changed one since), records a `rewind` (published as `session_rewound`; nothing
 * is deleted) and rebuilds the model context without them, as a load will.
 * `viaCommand`: the running prompt is the `/rewind` asking for it, and stays out of it.
 */
export async function rewindSession(ports: RewindPorts, target: RewindTarget, clientId: string | undefined, viaCommand = false): Promise<RewindResult> {
  const running = ports.runningPromptId();
  if (!viaCommand && ports.busy()) {
    throw new BerthError('session_busy', 'A prompt is running or queued; cancel it or wait for it before rewinding', {
      ...(running ? { promptId: running } : {}),
    });
  }
  await ports.flushTranscript();
  const all = await ports.transcript.all(ports.sessionId);
  const live = liveRecords(all).filter((r) => !viaCommand || r.promptId !== running);
  const cut = cutIndex(live, all, target);
  const targetTurnIndex = live.slice(0, cut).filter((r) => r.kind === 'user_prompt').length;
  const undone = new Set(live.slice(cut).flatMap((r) => (r.kind === 'user_prompt' && r.promptId ? [r.promptId] : [])));
  if (undone.size === 0) return { rewound: false, targetTurnIndex, filesChanged: [], filesFailed: [] };

  const rewindId = randomUUID();
  let report: RestoreReport = { filesChanged: [], filesFailed: [] };
  if (target.rewindFiles !== false) {
    const plan = await planRestore(ports.checkpoints, undone);
    report = await restoreFiles(ports.tools, ports.checkpoints, plan, rewindId, NEVER_ABORTED);
    await ports.checkpoints.markUndone(plan.effectIds, rewindId);
  }
  ports.publish({
    type: 'session_rewound',
    ...(viaCommand && running ? { promptId: running } : {}),
    originatorClientId: clientId,
    data: {
      sessionId: ports.sessionId,
      rewindId,
      ...(target.promptId ? { promptId: target.promptId } : {}),
      ...(target.checkpointUuid ? { checkpointUuid: target.checkpointUuid } : {}),
      targetTurnIndex,
      filesChanged: report.filesChanged,
      filesFailed: report.filesFailed,
      undonePromptIds: [...undone],
      fromRecordId: live[cut]!.recordId,
      toRecordId: all.at(-1)!.recordId,
    },
  });
  await ports.flushTranscript();
  ports.driver.restore(historyFromRecords(await ports.transcript.all(ports.sessionId)));
  return { rewound: true, targetTurnIndex, ...report };
}

/**
 * One session's rewinds, one at a time; while one runs no prompt is admitted, since its turn
 * would be built on the context and files being put back.
 */
export class SessionRewinder {
  private running: Promise<RewindResult> | null = null;

  constructor(private readonly ports: RewindPorts) {}

  /** Throws `session_busy` while a rewind runs (PromptLane asks before admitting a prompt). */
  assertIdle(): void {
    if (this.running) throw new BerthError('session_busy', 'A rewind is in progress; submit again once it has finished');
  }

  /** The turns a rewind can go back to (rewind-snapshots.ts). */
  snapshots(): Promise<RewindSnapshot[]> {
    return rewindSnapshots(this.ports);
  }

  async rewind(target: RewindTarget, clientId: string | undefined, viaCommand: boolean): Promise<RewindResult> {
    if (this.running) throw new BerthError('session_busy', 'Another rewind of this session is in progress');
    const run = rewindSession(this.ports, target, clientId, viaCommand);
    this.running = run;
    try {
      return await run;
    } finally {
      this.running = null;
    }
  }
}

/** Where the undone part starts among the live records; 404 when the target names no live turn. */
function cutIndex(live: readonly TranscriptRecord[], all: readonly TranscriptRecord[], target: RewindTarget): number {
  const { checkpointUuid } = target;
  if (checkpointUuid !== undefined) {
    const at = live.findIndex((r) => isBranchPoint(r, checkpointUuid));
    if (at >= 0) return at + 1;
    throw notFound(all.some((r) => isBranchPoint(r, checkpointUuid)), checkpointUuid, { checkpointUuid });
  }
  // Neither named (the prompt `/rewind` alone): the last turn the model saw.
  const promptId = target.promptId ?? lastTurn(live);
  if (promptId === undefined) throw new BerthError('rewind_target_not_found', 'There is no turn to rewind');
  const at = live.findIndex((r) => r.kind === 'user_prompt' && r.promptId === promptId);
  if (at >= 0) return at;
  throw notFound(all.some((r) => r.promptId === promptId), promptId, { promptId });
}

function notFound(undoneBefore: boolean, id: string, details: Record<string, unknown>): BerthError {
  const message = undoneBefore ? `The turn ${id} was undone by an earlier rewind` : `No turn of this session matches ${id}`;
  return new BerthError('rewind_target_not_found', message, details);
}

function lastTurn(live: readonly TranscriptRecord[]): string | undefined {
  const prompts = live.filter((r) => r.kind === 'user_prompt' && r.promptId !== null && !isCommand(r));
  return prompts.at(-1)?.promptId ?? undefined;
}

function isCommand(r: TranscriptRecord): boolean {
  const content = Array.isArray(r.data.content) ? (r.data.content as { type?: unknown; text?: unknown }[]) : [];
  return content.length === 1 && content[0]!.type === 'text' && typeof content[0]!.text === 'string' && parseCommand(content[0]!.text) !== null;
}

function isBranchPoint(r: TranscriptRecord, id: string): boolean {
  const bp = r.data.branchPoint as { checkpointUuid?: unknown; assistantRecordUuid?: unknown } | undefined;
  return r.kind === 'turn_end' && bp !== undefined && (bp.checkpointUuid === id || bp.assistantRecordUuid === id);
}
