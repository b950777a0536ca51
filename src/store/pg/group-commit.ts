import type pg from 'pg';
import { fenced, tokenTaken, whole } from './one-shot.js';
import type { Statement } from './pipeline.js';
import { type WriteFence, leaseOf } from './write-fence.js';

/** One write (a statement, or a few: a LOCK before it) waiting for its turn on the write connection. */
interface Shot {
  readonly fence: WriteFence | undefined;
  /** Its statements, made when its turn comes; again if it runs again alone (so making them must not change anything). Its answer is the last one's. */
  readonly statements: () => readonly Statement[];
  readonly flush: boolean;
  /** The numbered write's sessions (`NumberedShot`); none for a write with fixed text. */
  readonly numbers: readonly string[];
  /** Runs right after its COMMIT, before anything queued after it. */
  readonly committed?: (result: pg.QueryResult) => void;
  resolve(result: pg.QueryResult): void;
  reject(err: unknown): void;
}

/**
 * A write that numbers its rows from what the writes committed before it left (a transcript's
 * next seq): its statement is made when its turn comes, and `committed` advances the numbering
 * right after its COMMIT. Two that number the same session never share a batch: the second
 * would be numbered before the first committed.
 */
export interface NumberedShot {
  readonly sessions: readonly string[];
  statement(): Statement;
  committed(result: pg.QueryResult): void;
}

interface Batch {
  readonly shots: Shot[];
  started: boolean;
}

/** What the batcher needs of the connection's queue. */
export interface ShotRunner {
  /** Puts `work` at the tail of the write connection's queue. */
  enqueue<T>(work: () => Promise<T>): Promise<T>;
  /** Statements in one round trip on the write connection (`PgLink.pipeline`), its failure told as the connection's (no ROLLBACK). */
  pipeline(statements: readonly Statement[]): Promise<pg.QueryResult[]>;
  /** After a failed query: its transaction rolled back. */
  rollback(): Promise<void>;
  /** The write alone, in a transaction of its own, as before batching (its refusal told as its own). */
  alone(fence: WriteFence | undefined, statements: readonly Statement[], flush: boolean): Promise<pg.QueryResult>;
}

/**
 * Group commit (docs/store.md, Round trips): single-statement writes that queue up one after the
 * other while the write connection is busy — typically different sessions' writes made at the
 * same moment — go as one transaction in one round trip when their turn comes: each write behind
 * its own lease check, in one pipeline whose Sync commits them all (`whole`). No caller is
 * answered before that commit returns. If any statement fails, the whole transaction rolls back
 * and every write of it runs again alone, in its order, so each caller gets its own write's
 * outcome and one failure fails no other write. A write joins only the batch at the tail of the queue: nothing queued after a
 * write ever runs before it. A numbered write (a transcript batch) joins too, unless a write of
 * the batch numbers the same session.
 */
export class WriteBatcher {
  private open: Batch | undefined;

  constructor(private readonly runner: ShotRunner) {}

  /** The write's answer once committed (alone or with the writes queued right before or after it). */
  add(fence: WriteFence | undefined, statements: readonly Statement[], flush: boolean): Promise<pg.QueryResult> {
    return this.join({ fence, statements: () => statements, flush, numbers: [] });
  }

  /** A numbered write's answer once committed, its numbering advanced (`NumberedShot`). */
  addNumbered(fence: WriteFence | undefined, numbered: NumberedShot): Promise<pg.QueryResult> {
    return this.join({
      fence,
      statements: () => [numbered.statement()],
      flush: false,
      numbers: numbered.sessions,
      committed: (result) => numbered.committed(result),
    });
  }

  private join(write: Omit<Shot, 'resolve' | 'reject'>): Promise<pg.QueryResult> {
    return new Promise<pg.QueryResult>((resolve, reject) => {
      const shot: Shot = { ...write, resolve, reject };
      if (this.open && !this.open.started && !numbersClash(this.open.shots, shot)) {
        this.open.shots.push(shot);
        return;
      }
      const batch: Batch = { shots: [shot], started: false };
      void this.runner
        .enqueue(() => {
          batch.started = true;
          if (this.open === batch) this.open = undefined;
          return this.run(batch.shots);
        })
        // Never left waiting: a write already answered keeps its answer.
        .catch((err: unknown) => batch.shots.forEach((s) => s.reject(err)));
      // After enqueue, which closes whatever batch was open before.
      this.open = batch;
    });
  }

  /** Something else was queued (a unit, a read): later writes must not run before it by joining the batch ahead of it. */
  close(): void {
    this.open = undefined;
  }

  private async run(shots: readonly Shot[]): Promise<void> {
    if (shots.length === 1) return this.runAlone(shots[0]!);
    let plan: ReturnType<typeof planOf>;
    try {
      plan = planOf(shots);
    } catch {
      // A lease known lost: each write runs alone and that one fails as before.
      for (const shot of shots) await this.runAlone(shot);
      return;
    }
    let answers: pg.QueryResult[];
    try {
      answers = await this.runner.pipeline(plan.statements);
    } catch {
      await this.runner.rollback();
      for (const shot of shots) await this.runAlone(shot);
      return;
    }
    for (const [i, shot] of shots.entries()) {
      const taken = plan.takenAt[i];
      if (taken !== undefined) shot.fence!.acquired?.(tokenTaken(answers, taken));
      shot.committed?.(answers[plan.answerAt[i]!]!);
    }
    for (const [i, shot] of shots.entries()) shot.resolve(answers[plan.answerAt[i]!]!);
  }

  private async runAlone(shot: Shot): Promise<void> {
    try {
      const result = await this.runner.alone(shot.fence, shot.statements(), shot.flush);
      shot.committed?.(result);
      shot.resolve(result);
    } catch (err) {
      shot.reject(err);
    }
  }
}

/** Whether `shot` numbers a session a numbered write of `shots` numbers too. */
function numbersClash(shots: readonly Shot[], shot: Shot): boolean {
  return shot.numbers.length > 0 && shots.some((s) => s.numbers.some((id) => shot.numbers.includes(id)));
}

/**
 * The batch as one pipeline: where each write's answer is, and where the token is of a new
 * session's lease a write takes. A session's lease is checked (or taken) once, by its first
 * write: that statement's row lock holds until the commit, so its later writes need no check.
 */
function planOf(shots: readonly Shot[]): { statements: Statement[]; answerAt: number[]; takenAt: (number | undefined)[] } {
  const parts: Statement[] = [];
  const checked = new Set<string>();
  const answerAt: number[] = [];
  const takenAt: (number | undefined)[] = [];
  for (const shot of shots) {
    const { fence } = shot;
    let taken: number | undefined;
    if (fence && !checked.has(fence.sessionId)) {
      checked.add(fence.sessionId);
      const { token, leaseMs } = leaseOf(fence);
      const write = fenced(fence, token, leaseMs, shot.statements());
      if (write.takenAt !== undefined) taken = parts.length + write.takenAt;
      parts.push(...write.statements);
    } else {
      parts.push(...shot.statements());
    }
    answerAt.push(parts.length - 1);
    takenAt.push(taken);
  }
  const { sent, offset } = whole(parts, shots.some((s) => s.flush));
  return { statements: sent, answerAt: answerAt.map((i) => i + offset), takenAt: takenAt.map((t) => (t === undefined ? t : t + offset)) };
}
