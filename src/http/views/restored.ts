import type { PromptRow } from '../../sessions/records.js';
import type { RestoreOutcome } from '../../sessions/restore.js';
import type { EventEnvelope, RestoredSession } from '../openapi.gen.js';
import { sessionBody, sessionState } from './session.js';

/** One entry of `promptTerminals`. */
export interface PromptTerminalView {
  readonly v: 1;
  readonly promptId: string;
  readonly terminal: PromptRow['terminal'];
  readonly stopReason?: string;
  readonly code?: string;
  readonly at: number | null;
}

/**
 * The `RestoredSession` body of load and resume: the `Session` fields, the
 * live `state`, the SSE cursor and epoch to subscribe with, the replay
 * snapshot (load only) and the settled prompts' outcomes from the durable ledger.
 */
export function restoredSessionBody(outcome: RestoreOutcome): RestoredSession {
  const { session, replay, settled } = outcome;
  const unreadable = replay ? replay.compactedReplay.unreadable + replay.liveJournal.unreadable : 0;
  const terminals = settled.map(promptTerminal);
  return {
    ...sessionBody(session, outcome.attached, outcome.clientId),
    state: sessionState(session),
    hasActivePrompt: session.hasActivePrompt,
    hasRunningBackgroundTasks: false,
    ...(replay
      ? {
          compactedReplay: replay.compactedReplay.envelopes as EventEnvelope[],
          liveJournal: replay.liveJournal.envelopes as EventEnvelope[],
          historyHasMore: replay.compactedReplay.hasMore,
          ...(replay.compactedReplay.anchorRecordId ? { historyAnchorRecordId: replay.compactedReplay.anchorRecordId } : {}),
        }
      : {}),
    lastEventId: outcome.lastEventId,
    eventEpoch: session.bus.epoch,
    ...(outcome.artifactWarnings.length > 0 ? { artifactWarnings: [...outcome.artifactWarnings] } : {}),
    ...(unreadable > 0 ? { partial: true as const, replayError: `${unreadable} transcript record(s) could not be read and were skipped` } : {}),
    ...(terminals.length > 0 ? { promptTerminals: terminals } : {}),
  };
}

/** One ledger entry as qwen reports it: `completed` / `cancelled` / `interrupted` (code `daemon_lost`), or Berth's `error` and `removed`. */
function promptTerminal(p: PromptRow): PromptTerminalView {
  return {
    v: 1,
    promptId: p.id,
    terminal: p.terminal,
    ...(p.stopReason ? { stopReason: p.stopReason } : {}),
    ...(p.errorCode ? { code: p.errorCode } : {}),
    at: p.settledAt,
  };
}
