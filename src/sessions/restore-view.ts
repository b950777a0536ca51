import type { PromptRow } from '../store/repos/prompts.js';
import type { RestoreOutcome } from './restore.js';
import { sessionBody } from './views.js';

/**
 * The `RestoredSession` body of load and resume (docs/client-api.md §5.3, §5.4): the
 * `Session` fields, the live `state`, the SSE cursor and epoch to subscribe
 * with, the replay snapshot (load only) and the settled prompts' outcomes from
 * the durable ledger.
 */
export function restoredSessionBody(outcome: RestoreOutcome, settled: readonly PromptRow[]): Record<string, unknown> {
  const { session, replay } = outcome;
  const unreadable = replay ? replay.compactedReplay.unreadable + replay.liveJournal.unreadable : 0;
  const terminals = settled.map(promptTerminal);
  return {
    ...sessionBody(session, outcome.attached, outcome.clientId),
    state: session.state(),
    hasActivePrompt: session.hasActivePrompt,
    hasRunningBackgroundTasks: false,
    ...(replay
      ? {
          compactedReplay: replay.compactedReplay.envelopes,
          liveJournal: replay.liveJournal.envelopes,
          historyHasMore: replay.compactedReplay.hasMore,
          ...(replay.compactedReplay.anchorRecordId ? { historyAnchorRecordId: replay.compactedReplay.anchorRecordId } : {}),
        }
      : {}),
    lastEventId: outcome.lastEventId,
    eventEpoch: session.bus.epoch,
    ...(outcome.artifactWarnings.length > 0 ? { artifactWarnings: outcome.artifactWarnings } : {}),
    ...(unreadable > 0 ? { partial: true, replayError: `${unreadable} transcript record(s) could not be read and were skipped` } : {}),
    ...(terminals.length > 0 ? { promptTerminals: terminals } : {}),
  };
}

/** One ledger entry as qwen reports it: `completed` / `cancelled` / `interrupted` (code `daemon_lost`), or Berth's `error` and `removed`. */
function promptTerminal(p: PromptRow): Record<string, unknown> {
  return {
    v: 1,
    promptId: p.id,
    terminal: p.terminal,
    ...(p.stopReason ? { stopReason: p.stopReason } : {}),
    ...(p.errorCode ? { code: p.errorCode } : {}),
    at: p.settledAt,
  };
}
