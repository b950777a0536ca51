import type { ContentBlock } from '../agents/driver.js';
import { BerthError } from '../protocol/errors/index.js';

/** One admitted prompt (docs/client-api.md §6): queued until it runs, then running until its terminal event. */
export interface PromptEntry {
  readonly promptId: string;
  readonly content: readonly ContentBlock[];
  readonly text: string;
  readonly originatorClientId: string | undefined;
  readonly queuedAt: number;
  /** Absolute time after which the prompt fails with `prompt_deadline_exceeded`, or null. */
  readonly deadlineAt: number | null;
  /** True once it had to wait behind another prompt (it then gets the pending_prompt_* events). */
  waited: boolean;
  state: 'queued' | 'running';
  startedAt?: number;
  /** Its row was stored with its start mark (it was admitted to an idle session): the turn writes none. */
  startStored?: boolean;
  abort?: AbortController;
  /** Set once the terminal event is published, so there is never a second one. */
  settled: boolean;
  deadlineTimer?: NodeJS.Timeout;
  cancelRequestedAt?: number;
}

/** The text of a prompt as pending-prompt lists show it: its text blocks joined. */
export function promptText(content: readonly ContentBlock[]): string {
  return content
    .filter((b) => b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string)
    .join('\n');
}

/**
 * The per-session FIFO (docs/client-api.md §6.1): running first, then queued in order; the
 * count of admitted-but-unsettled prompts is capped.
 */
export class PromptQueue {
  private readonly entries: PromptEntry[] = [];

  constructor(
    private readonly sessionId: string,
    private readonly cap: number,
  ) {}

  /** Throws `prompt_queue_full` (503, body fields the SDK reads) when the cap is reached. */
  /** Throws `prompt_queue_full` unless one more fits beside `reserved` prompts still being admitted. */
  checkRoom(reserved = 0): void {
    const pending = this.entries.length + reserved;
    if (pending >= this.cap) {
      throw new BerthError(
        'prompt_queue_full',
        `Prompt queue full for session "${this.sessionId}" (${pending}/${this.cap} pending)`,
        { sessionId: this.sessionId, limit: this.cap, pendingCount: pending },
      );
    }
  }

  push(entry: PromptEntry): void {
    this.checkRoom();
    this.entries.push(entry);
  }

  running(): PromptEntry | undefined {
    const head = this.entries[0];
    return head?.state === 'running' ? head : undefined;
  }

  nextQueued(): PromptEntry | undefined {
    return this.entries.find((e) => e.state === 'queued');
  }

  remove(entry: PromptEntry): void {
    const i = this.entries.indexOf(entry);
    if (i >= 0) this.entries.splice(i, 1);
  }

  all(): readonly PromptEntry[] {
    return this.entries;
  }

  get size(): number {
    return this.entries.length;
  }
}
