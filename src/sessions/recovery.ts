import type { Clock } from '../clock.js';
import type { PromptRepository, PromptRow, SessionRepository } from './records.js';
import type { TranscriptRepository } from '../transcript/records.js';
import { newRecordId } from './ids.js';
import { settlementsOf, type ReceiptLookup } from './open-calls.js';

/** The close reasons of sessions that ended because the daemon stopped, not because anyone closed them. */
export const DAEMON_LOST = 'daemon_lost';
/** An external agent's process died under the session (issue 12); its next prompt starts a new one. */
export const AGENT_DIED = 'agent_died';
/** Cluster mode: the session left this node for another (its lease lost, or a drain); its stored row stays open. */
export const HANDED_OVER = 'handed_over';
export const REOPENABLE_CLOSE_REASONS: ReadonlySet<string> = new Set([DAEMON_LOST, 'daemon_shutdown', AGENT_DIED]);

export interface RecoveryReport {
  /** Prompts that were running when the daemon stopped; their turns are marked interrupted. */
  readonly interruptedTurns: number;
  /** Prompts admitted but never started; reported as interrupted, not run (README, Crash and restart). */
  readonly unstartedPrompts: number;
  /** Sessions that were live and are now persisted (reopened on first use, docs/client-api.md §5.10). */
  readonly lostSessions: number;
  /** Tool calls of interrupted turns that had no result; each now has one (uncertain when its receipt says executing). */
  readonly settledCalls: number;
}

/**
 * What a start-up does about the daemon that ran before it (crash and
 * restart): nothing that was admitted may vanish without a trace. Every prompt
 * the ledger still holds open gets its terminal — `interrupted` with code
 * `daemon_lost` — and a `turn_end` record that says so, so transcript, export
 * and `promptTerminals` all show it. Queued prompts that never started are
 * reported the same way rather than run: they were written against a
 * conversation whose last turn never finished, and running them unseen could
 * act on a state nobody asked for. Sessions left open are marked closed by
 * `daemon_lost`; a session route reopens them on first use. A tool call the
 * interrupted turn left without a result is settled first (src/sessions/open-calls.ts):
 * `uncertain_effect` when its receipt says it was running.
 *
 * Runs before the daemon listens, so no live session can race it.
 */
interface RecoveryStores {
  readonly sessions: SessionRepository;
  readonly transcript: TranscriptRepository;
  readonly prompts: PromptRepository;
  readonly clock: Clock;
  readonly receipts?: ReceiptLookup;
}

export async function recoverInterrupted(stores: RecoveryStores): Promise<RecoveryReport> {
  const now = stores.clock.now();
  let interruptedTurns = 0;
  let unstartedPrompts = 0;
  let settledCalls = 0;
  for (const p of await stores.prompts.unsettled()) {
    settledCalls += await settleInterrupted(stores, p, now);
    if (p.startedAt !== null) interruptedTurns += 1;
    else unstartedPrompts += 1;
  }
  // One statement, not a read of every session ever stored: start-up time must not grow with history.
  const lostSessions = await stores.sessions.closeAllOpen(DAEMON_LOST, now);
  return { interruptedTurns, unstartedPrompts, lostSessions, settledCalls };
}

/**
 * The same for one session whose owner node died or let it go (docs/cluster-leases.md,
 * Takeover): in cluster mode a start-up must not settle other live nodes' sessions, so
 * each is recovered by the node that takes its lease, before it is reopened. Its row is
 * left closed as `daemon_lost` when it was open, so the reopen brings it back on a new
 * epoch as after a restart. Answers whether the session exists.
 */
export async function recoverSession(stores: RecoveryStores, sessionId: string): Promise<boolean> {
  const row = await stores.sessions.get(sessionId);
  if (!row) return false;
  const now = stores.clock.now();
  for (const p of await stores.prompts.unsettled(sessionId)) await settleInterrupted(stores, p, now);
  if (row.closedAt === null) await stores.sessions.update(sessionId, { closedAt: now, closeReason: DAEMON_LOST }, now);
  return true;
}

/** Ends one prompt the ledger still holds open with its `daemon_lost` terminal; answers how many tool calls it settled. */
async function settleInterrupted(stores: RecoveryStores, p: PromptRow, now: number): Promise<number> {
  const started = p.startedAt !== null;
  const message = started
    ? 'The daemon stopped while this turn was running; it was not finished'
    : 'The daemon stopped before this queued prompt started; it was not run';
  const settlements = p.startedAt !== null ? await settlementsOf(stores.transcript, stores.receipts, p.sessionId, { id: p.id, startedAt: p.startedAt }, now) : [];
  await stores.transcript.append([
    ...settlements,
    {
      sessionId: p.sessionId,
      recordId: newRecordId(),
      kind: 'turn_end',
      promptId: p.id,
      at: now,
      data: {
        interrupted: true,
        started,
        error: { message, code: DAEMON_LOST },
        ...(started ? {} : { prompt: p.content }),
      },
    },
  ]);
  await stores.prompts.settle(p.id, now, 'interrupted', null, DAEMON_LOST);
  return settlements.filter((r) => r.kind === 'tool_result').length;
}
