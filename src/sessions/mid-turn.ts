import { randomUUID } from 'node:crypto';
import type { ContentBlock } from '../agents/driver.js';
import type { PublishInput } from '../events/types.js';
import type { Logger } from '../log.js';
import type { Clock } from '../clock.js';
import { MAX_MID_TURN_MESSAGES, MID_TURN_IDS_REMEMBERED } from './limits.js';

/** A message a person typed while a turn was running, waiting for the turn's next model request. */
export interface MidTurnMessage {
  readonly messageId: string;
  /** Trimmed text; may be empty when the message is media only. */
  readonly text: string;
  /** Media blocks (images, resources) sent with the text. */
  readonly media: readonly ContentBlock[];
  readonly originatorClientId: string | undefined;
}

/**
 * The answer of `POST /session/{id}/mid-turn-message` (qwen serve's shape). `session_idle` is qwen's own
 * reason (no turn to join: the client sends a normal prompt instead); the others are Berth's, where qwen
 * says only `accepted: false`.
 */
export type MidTurnEnqueued =
  | { readonly accepted: true; readonly messageId: string }
  | { readonly accepted: false; readonly reason: 'session_idle' | 'queue_full' | 'message_id_conflict'; readonly message?: string };

/** `GET /session/{id}/mid-turn-messages`: what still waits, and the ids already settled or run as prompts. */
export interface MidTurnSnapshot {
  readonly messages: readonly { readonly messageId: string; readonly text: string; readonly content?: readonly ContentBlock[] }[];
  readonly settledMessageIds: readonly string[];
  readonly promotedMessageIds: readonly string[];
}

export interface MidTurnPorts {
  readonly sessionId: string;
  /** A turn is running or prompts are queued: a message has a turn to join. */
  active(): boolean;
  publish(input: PublishInput): void;
  readonly clock: Clock;
}

/** The content a message stands for in the model's context: its text, then its media. */
export function midTurnContent(m: Pick<MidTurnMessage, 'text' | 'media'>): ContentBlock[] {
  return [...(m.text ? [{ type: 'text', text: m.text }] : []), ...m.media];
}

/**
 * One session's mid-turn messages (qwen serve's queue): queued while a turn runs, handed to the turn
 * before its next model request (`drain`, announced as `mid_turn_message_injected`), or, left over when
 * the turns end, run as prompts of their own (`leftovers`).
 */
export class MidTurnQueue {
  private readonly queue: MidTurnMessage[] = [];
  private readonly settled: string[] = [];
  private readonly promoted: string[] = [];

  constructor(private readonly ports: MidTurnPorts) {}

  get size(): number {
    return this.queue.length;
  }

  enqueue(input: { text: string; media: readonly ContentBlock[]; messageId?: string; clientId?: string }): MidTurnEnqueued {
    const { messageId } = input;
    if (messageId !== undefined) {
      // A retry of a message already taken is accepted again, never queued twice; the same id for other words is refused.
      const queued = this.queue.find((m) => m.messageId === messageId);
      if (queued) {
        const same = queued.text === input.text && JSON.stringify(queued.media) === JSON.stringify(input.media);
        return same ? { accepted: true, messageId } : { accepted: false, reason: 'message_id_conflict', message: 'Another message is queued under this messageId' };
      }
      if (this.settled.includes(messageId) || this.promoted.includes(messageId)) return { accepted: true, messageId };
    }
    if (!this.ports.active()) return { accepted: false, reason: 'session_idle' };
    if (this.queue.length >= MAX_MID_TURN_MESSAGES) {
      return { accepted: false, reason: 'queue_full', message: `At most ${MAX_MID_TURN_MESSAGES} mid-turn messages may wait in a session` };
    }
    const id = messageId ?? randomUUID();
    this.queue.push({ messageId: id, text: input.text, media: input.media, originatorClientId: input.clientId });
    this.ports.publish({
      type: 'pending_prompt_added',
      promptId: id,
      originatorClientId: input.clientId,
      data: { sessionId: this.ports.sessionId, promptId: id, text: input.text, queuedAt: this.ports.clock.now() },
    });
    return { accepted: true, messageId: id };
  }

  /** Withdraws a message not yet handed off; false when it is not waiting (already taken, run, or unknown). */
  remove(messageId: string): boolean {
    const i = this.queue.findIndex((m) => m.messageId === messageId);
    if (i < 0) return false;
    const [removed] = this.queue.splice(i, 1);
    remember(this.settled, messageId);
    this.ports.publish({
      type: 'pending_prompt_completed',
      promptId: messageId,
      originatorClientId: removed!.originatorClientId,
      data: { sessionId: this.ports.sessionId, promptId: messageId, state: 'removed' },
    });
    return true;
  }

  snapshot(): MidTurnSnapshot {
    return {
      messages: this.queue.map((m) => ({ messageId: m.messageId, text: m.text, ...(m.media.length > 0 ? { content: m.media } : {}) })),
      settledMessageIds: [...this.settled],
      promotedMessageIds: [...this.promoted],
    };
  }

  /**
   * Hands every waiting message to the running turn `promptId`: one `mid_turn_message_injected` event (qwen's
   * shape: `messages`, `messageIds`, `items`), which the transcript records where it happened.
   */
  drain(promptId: string): readonly MidTurnMessage[] {
    const taken = this.queue.splice(0);
    if (taken.length === 0) return taken;
    for (const m of taken) remember(this.settled, m.messageId);
    this.ports.publish({
      type: 'mid_turn_message_injected',
      promptId,
      data: {
        sessionId: this.ports.sessionId,
        messages: taken.map((m) => m.text),
        messageIds: taken.map((m) => m.messageId),
        items: taken.map((m) => ({ content: midTurnContent(m) })),
      },
    });
    return taken;
  }

  /** The messages no turn took, for the session to run as prompts of their own; their ids are remembered as promoted. */
  leftovers(): readonly MidTurnMessage[] {
    const left = this.queue.splice(0);
    for (const m of left) remember(this.promoted, m.messageId);
    return left;
  }
}

function remember(ring: string[], id: string): void {
  ring.push(id);
  if (ring.length > MID_TURN_IDS_REMEMBERED) ring.splice(0, ring.length - MID_TURN_IDS_REMEMBERED);
}

/**
 * What a session does with the messages no turn took, once its turns are over (qwen serve's choice): each
 * runs as a prompt of its own, under its `messageId` (or a fresh id when that one is taken), in the order
 * they were typed. While other prompts still wait they stay queued: the next turn takes them.
 */
export function promoteLeftovers(
  queue: MidTurnQueue,
  prompts: readonly { readonly state: string; readonly settled: boolean }[],
  submit: (content: readonly ContentBlock[], opts: { clientId?: string; promptId?: string; promoted: true }) => Promise<unknown>,
  log: Logger,
  sessionId: string,
): void {
  const othersWaiting = prompts.some((e) => e.state === 'queued' && !e.settled);
  if (othersWaiting || queue.size === 0) return;
  let chain: Promise<unknown> = Promise.resolve();
  for (const m of queue.leftovers()) {
    const base = { ...(m.originatorClientId ? { clientId: m.originatorClientId } : {}), promoted: true as const };
    const content = midTurnContent(m);
    chain = chain
      .then(() => submit(content, { ...base, promptId: m.messageId }).catch(() => submit(content, base)))
      .catch((err: unknown) => log.warn({ err, sessionId, messageId: m.messageId }, 'a mid-turn message could not run as a prompt'));
  }
}
