import { frameOf, TERMINAL_BUS_TYPES } from '../events/envelope.js';
import { DEFAULT_MAX_QUEUED, MAX_QUEUED_BYTES } from '../events/limits.js';
import type { EventBusStats } from '../events/stats.js';
import { SubscriberQueue } from '../events/subscriber-queue.js';
import type { EventEnvelope, EventFrame, SubscribeOptions } from '../events/types.js';
import { BerthError, isErrorCode } from '../protocol/errors/index.js';
import type { ReplayAnswer, ReplayQuestion } from './replay-server.js';
import { downSubject, eventsSubject, replaySubject } from './subjects.js';
import { BusRequestError, type BusSubscription, type BusTransport } from './transport.js';

export interface RemoteFeedOptions {
  readonly transport: BusTransport;
  readonly sessionId: string;
  /** The node that runs the session now. */
  readonly ownerNodeId: string;
  readonly subscribe: SubscribeOptions;
  readonly timeoutMs: number;
  readonly now: () => number;
  readonly newId: () => string;
  readonly stats?: EventBusStats;
}

interface Published {
  readonly epoch: string;
  readonly frame: EventFrame;
}

/**
 * A session's event stream on a node that does not run it (docs/cluster-bus.md), with
 * a local subscriber's rules: it listens on the session's subject first, asks the
 * owner for the replay after the client's cursor, then hands out that replay and the
 * live events after it, dropping those the replay already held. The live part goes
 * through the same bounded `SubscriberQueue` (warning, eviction). When the owner's
 * history breaks — another epoch, a gap in the ids, the owner saying it stops — the
 * stream ends, as a restarted daemon's does: the client resumes with its cursor and
 * gets `state_resync_required` from whoever runs the session then.
 */
export async function openRemoteFeed(options: RemoteFeedOptions): Promise<SubscriberQueue> {
  const { transport, sessionId, subscribe } = options;
  const buffered: Published[] = [];
  let deliver: ((message: Published) => void) | undefined;
  let stop: (() => void) | undefined;
  const subscriptions: BusSubscription[] = [
    transport.subscribe(eventsSubject(sessionId), (data) => {
      const message = readPublished(data);
      if (message === undefined) return;
      if (deliver) deliver(message);
      else buffered.push(message);
    }),
    transport.subscribe(downSubject(options.ownerNodeId), () => stop?.()),
  ];
  const leave = () => subscriptions.forEach((s) => s.unsubscribe());

  let answer: Extract<ReplayAnswer, { ok: true }>;
  try {
    answer = await askReplay(options);
  } catch (err) {
    leave();
    throw err;
  }

  const queue = new SubscriberQueue({
    id: options.newId(),
    epoch: answer.epoch,
    maxQueued: subscribe.maxQueued ?? DEFAULT_MAX_QUEUED,
    maxQueuedBytes: MAX_QUEUED_BYTES,
    initial: answer.frames.map((f) => frameOf(f as EventEnvelope)),
    replayedCount: answer.replayedCount,
    now: options.now,
    ...(options.stats && { stats: options.stats }),
    onDetach: leave,
  });
  let expected = answer.lastEventId + 1;
  stop = () => queue.end();
  const take = (message: Published, live: boolean) => {
    const id = message.frame.envelope.id!;
    if (message.epoch !== answer.epoch) {
      // A buffered event of an older bus is history the replay already settled; a live one means a new bus.
      if (live) queue.end();
      return;
    }
    if (id < expected) return;
    if (id > expected) return queue.end();
    expected = id + 1;
    if (TERMINAL_BUS_TYPES.has(message.frame.envelope.type)) queue.end(message.frame);
    else queue.offer(message.frame);
  };
  for (const message of buffered.splice(0)) take(message, false);
  deliver = (message) => take(message, true);
  return queue;
}

async function askReplay(options: RemoteFeedOptions): Promise<Extract<ReplayAnswer, { ok: true }>> {
  const { subscribe } = options;
  const question: ReplayQuestion = {
    sessionId: options.sessionId,
    ...(subscribe.lastEventId !== undefined && { lastEventId: subscribe.lastEventId }),
    ...(subscribe.epoch !== undefined && { epoch: subscribe.epoch }),
    ...(subscribe.snapshot !== undefined && { snapshot: true }),
  };
  let data: Uint8Array;
  try {
    // The broker has our subscription before the owner is asked: no event falls between replay and live.
    await options.transport.flush();
    data = await options.transport.request(replaySubject(options.ownerNodeId), JSON.stringify(question), options.timeoutMs);
  } catch (err) {
    if (err instanceof BusRequestError) throw new BerthError('owner_unreachable', undefined, { reason: err.reason });
    throw err;
  }
  const answer = JSON.parse(Buffer.from(data).toString('utf8')) as ReplayAnswer;
  if (!answer.ok) throw new BerthError(isErrorCode(answer.code) ? answer.code : 'internal_error', answer.message);
  return answer;
}

/** One message of a session's subject, or undefined when it is not one (a stranger on the subject is ignored). */
function readPublished(data: Uint8Array): Published | undefined {
  try {
    const value = JSON.parse(Buffer.from(data).toString('utf8')) as { epoch?: unknown; event?: EventEnvelope };
    if (typeof value.epoch !== 'string' || typeof value.event !== 'object' || value.event === null) return undefined;
    if (!Number.isSafeInteger(value.event.id)) return undefined;
    return { epoch: value.epoch, frame: frameOf(value.event) };
  } catch {
    return undefined;
  }
}
