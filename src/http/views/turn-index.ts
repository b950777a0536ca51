import type { TranscriptRecord } from '../../transcript/records.js';
import type { TurnIndex } from '../../transcript/service.js';

const iso = (ms: number) => new Date(ms).toISOString();
/** The label of a turn in the index: the start of its prompt text. */
const TURN_LABEL_CHARS = 120;

/** One turn of `GET /session/{id}/turn-index`. */
export interface TurnIndexEntry {
  readonly ordinal: number;
  readonly turnId: string;
  readonly kind: 'prompt';
  readonly promptId?: string;
  readonly timestamp: string;
  readonly label: string;
}

/** The `GET /session/{id}/turn-index` body (Berth's route outside the contract's operations). */
export interface TurnIndexBody {
  readonly v: 1;
  readonly sessionId: string;
  readonly snapshot: string;
  readonly totalTurns: number;
  readonly start: number;
  readonly turns: readonly TurnIndexEntry[];
  readonly startTime: string;
  readonly lastUpdated: string;
}

export function turnIndexBody(index: TurnIndex): TurnIndexBody {
  return {
    v: 1,
    sessionId: index.sessionId,
    snapshot: index.snapshot,
    totalTurns: index.totalTurns,
    start: index.start,
    turns: index.turns.map((r, i) => ({
      ordinal: index.start + i,
      turnId: r.recordId,
      kind: 'prompt',
      ...(r.promptId ? { promptId: r.promptId } : {}),
      timestamp: iso(r.at),
      label: promptLabel(r),
    })),
    startTime: index.startTime,
    lastUpdated: index.lastUpdated,
  };
}

function promptLabel(r: TranscriptRecord): string {
  const blocks = Array.isArray(r.data.content) ? (r.data.content as Record<string, unknown>[]) : [];
  const text = blocks
    .map((b) => (b && b.type === 'text' && typeof b.text === 'string' ? b.text : `[${String(b?.type ?? 'content')}]`))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > TURN_LABEL_CHARS ? `${text.slice(0, TURN_LABEL_CHARS - 1)}…` : text || '(empty prompt)';
}
