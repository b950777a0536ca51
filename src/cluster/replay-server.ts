import { controlFrame, CONTROL_TYPES } from '../events/envelope.js';
import { MAX_REPLAY_BYTES } from '../events/limits.js';
import type { EventFrame } from '../events/types.js';
import type { Logger } from '../log.js';
import { asBerthError, BerthError } from '../protocol/errors/index.js';
import { REPLAY_ANSWER_HEADROOM } from './limits.js';
import { replaySubject } from './subjects.js';
import type { BusSubscription, BusTransport } from './transport.js';

/** A follower's question: the client's cursor, as its `GET /session/{id}/events` presented it. */
export interface ReplayQuestion {
  readonly sessionId: string;
  readonly lastEventId?: number;
  readonly epoch?: string;
  readonly snapshot?: boolean;
}

/** What the owner answers: its epoch, the frames a local subscriber would start with, and the id they end at. */
export type ReplayAnswer =
  | { readonly ok: true; readonly epoch: string; readonly lastEventId: number; readonly replayedCount: number; readonly frames: unknown[] }
  | { readonly ok: false; readonly code: string; readonly message: string };

/** A live session as the replay server needs it: its bus's replay and its snapshot. */
export interface ReplaySource {
  readonly epoch: string;
  replayFor(cursor: { lastEventId?: number; epoch?: string }, maxBytes: number): { frames: EventFrame[]; replayedCount: number; lastEventId: number };
  snapshot(): Record<string, unknown>;
  now(): number;
}

/**
 * Answers replay questions for the sessions this node runs (docs/cluster-bus.md): the
 * same `planReplay` a local subscriber gets, with the replay budget cut to what one
 * bus message holds, so a far-behind follower is told `replay_budget_exceeded`
 * sooner than on one daemon, and recovers the same way.
 */
export function serveReplays(
  transport: BusTransport,
  nodeId: string,
  open: (sessionId: string) => Promise<ReplaySource>,
  log: Logger,
): BusSubscription {
  return transport.serve(replaySubject(nodeId), async (data) => {
    try {
      const question = readQuestion(data);
      const source = await open(question.sessionId);
      const budget = Math.min(MAX_REPLAY_BYTES, transport.maxPayload - REPLAY_ANSWER_HEADROOM);
      const replay = source.replayFor(question, budget);
      const frames = replay.frames;
      if (question.snapshot) frames.push(controlFrame(CONTROL_TYPES.sessionSnapshot, source.snapshot(), source.now()));
      const head = `{"ok":true,"epoch":${JSON.stringify(source.epoch)},"lastEventId":${replay.lastEventId},"replayedCount":${replay.replayedCount},"frames":[`;
      const answer = `${head}${frames.map((f) => f.json).join(',')}]}`;
      if (Buffer.byteLength(answer) > transport.maxPayload) throw new BerthError('bus_message_too_large', 'One event of this replay is larger than a bus message');
      return answer;
    } catch (err) {
      const error = asBerthError(err);
      if (error.code === 'internal_error') log.warn({ err }, 'replay for another node failed');
      return JSON.stringify({ ok: false, code: error.code, message: error.message } satisfies ReplayAnswer);
    }
  });
}

function readQuestion(data: Uint8Array): ReplayQuestion {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(data).toString('utf8'));
  } catch {
    throw new BerthError('invalid_request', 'A replay question is not JSON');
  }
  const q = value as Partial<ReplayQuestion> | null;
  const fine =
    q !== null && typeof q === 'object' && typeof q.sessionId === 'string' &&
    (q.lastEventId === undefined || Number.isSafeInteger(q.lastEventId)) &&
    (q.epoch === undefined || typeof q.epoch === 'string') &&
    (q.snapshot === undefined || typeof q.snapshot === 'boolean');
  if (!fine) throw new BerthError('invalid_request', 'A replay question has the wrong shape');
  return q as ReplayQuestion;
}
