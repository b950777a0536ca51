import { BerthError } from '../../protocol/errors/index.js';
import type { SessionToolAccess } from '../service.js';
import { currentRevision, runOwn } from './file-state.js';
import type { CheckpointBook, FileEffect } from './records.js';

/** One file a rewind puts back: to what, and what the undone turns left in it. */
export interface FileRestore {
  readonly path: string;
  /** The content before the first undone effect (its blob), or null for "no file". */
  readonly targetSha256: string | null;
  /** What the latest effect left: a SHA-256, `absent`, or null when that call never settled. */
  readonly expected: string | 'absent' | null;
}

export interface RestorePlan {
  readonly files: readonly FileRestore[];
  /** The effects the rewind undoes (marked once it is done). */
  readonly effectIds: readonly number[];
}

/**
 * What undoing these turns means for files: each file their effects touched goes back to
 * its state before the first of them. Refused whole (`checkpoint_evicted`,
 * `checkpoint_unavailable`, with the files) when a needed prior content was not kept.
 */
export async function planRestore(book: CheckpointBook, undonePrompts: ReadonlySet<string>): Promise<RestorePlan> {
  const live = (await book.effects()).filter((e) => e.undoneBy === null);
  const undone = live.filter((e) => e.promptId !== null && undonePrompts.has(e.promptId));
  const first = new Map<string, FileEffect>();
  for (const e of undone) if (!first.has(e.path)) first.set(e.path, e);
  const latest = new Map<string, FileEffect>();
  for (const e of live) if (first.has(e.path)) latest.set(e.path, e);
  const evicted = [...first.values()].filter((e) => e.prior === 'evicted').map((e) => e.path);
  if (evicted.length > 0) {
    throw new BerthError(
      'checkpoint_evicted',
      `Rewinding this far needs file contents the session's checkpoint budget (${book.budgetBytes} bytes) gave up: ${evicted.join(', ')}. Rewind to a later turn.`,
      { files: evicted, budgetBytes: book.budgetBytes },
    );
  }
  const unknown = [...first.values()].filter((e) => e.prior === 'unknown').map((e) => e.path);
  if (unknown.length > 0) {
    throw new BerthError('checkpoint_unavailable', `No checkpoint could be kept of ${unknown.join(', ')} (binary, too large or unreadable)`, {
      files: unknown,
    });
  }
  const files = [...first.values()].map((e) => {
    const last = latest.get(e.path)!;
    const expected = last.after === 'pending' ? null : last.after === 'absent' ? 'absent' : last.afterSha256;
    return { path: e.path, targetSha256: e.prior === 'file' ? e.priorSha256 : null, expected };
  });
  return { files, effectIds: undone.map((e) => e.id) };
}

/** What a rewind did to files, in qwen serve's words. */
export interface RestoreReport {
  readonly filesChanged: string[];
  readonly filesFailed: string[];
}

/**
 * Puts the planned files back through the session's own `workspace_write` and
 * `workspace_delete` (so receipts, confinement and a remote workspace's channel apply), after
 * checking every one first: a file whose content is no longer what the undone turns left
 * (someone changed it since) refuses the whole rewind with `rewind_conflict` and the list.
 */
export async function restoreFiles(
  access: SessionToolAccess,
  book: CheckpointBook,
  plan: RestorePlan,
  rewindId: string,
  signal: AbortSignal,
): Promise<RestoreReport> {
  const current = new Map<string, string | 'absent' | null>();
  for (const f of plan.files) current.set(f.path, await currentRevision(access, f.path, signal));
  const conflicts = plan.files.filter((f) => f.expected !== null && current.get(f.path) !== f.expected).map((f) => f.path);
  if (conflicts.length > 0) {
    throw new BerthError('rewind_conflict', `Changed since the turns being undone left them: ${conflicts.join(', ')}. Nothing was rewound.`, {
      files: conflicts,
    });
  }
  const report: RestoreReport = { filesChanged: [], filesFailed: [] };
  let n = 0;
  for (const f of plan.files) {
    const now = current.get(f.path) ?? null;
    const target = f.targetSha256 ?? 'absent';
    if (now === target) continue;
    const callId = `rewind-${rewindId}-${++n}`;
    const expectedSha256 = now === 'absent' ? null : now;
    let ok: boolean;
    if (f.targetSha256 === null) {
      ok = now === 'absent' || (await runOwn(access, 'workspace_delete', { path: f.path, expectedSha256 }, signal, 'critical', callId)).ok;
    } else {
      const content = (await book.content(f.targetSha256))?.toString('utf8');
      ok = content !== undefined && (await runOwn(access, 'workspace_write', { path: f.path, content, expectedSha256 }, signal, 'critical', callId)).ok;
    }
    (ok ? report.filesChanged : report.filesFailed).push(f.path);
  }
  return report;
}
