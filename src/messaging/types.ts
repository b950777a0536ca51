/**
 * The module protocol's shapes (seed 004): what a tab asks, and what Berth
 * answers. Field names and meanings are the seed's; Berth adds `code` to a
 * refusal (a catalogue code a script can branch on) and `sentAt` to a message.
 */

/** The kinds of seed 004 (`Kind`); `info` when a question names none. */
export type MessageKind = 'info' | 'question' | 'task' | 'report' | 'answer';

/** Seed 004 `Kind`, in the order the seed lists them. */
export const KINDS: readonly MessageKind[] = ['info', 'question', 'task', 'report', 'answer'];

/** Seed 004 `ALL`: the word that sends a message to every other agent tab rather than to one. */
export const ALL = 'all';

/** Seed 004 `Request`. */
export type Request =
  | { readonly op: 'list' }
  | { readonly op: 'send'; readonly tab: string; readonly text: string; readonly kind: MessageKind }
  | { readonly op: 'inbox' }
  | { readonly op: 'peek' };

/** Seed 004 `Question`: a token, optionally the conversation it was asked from, and a request. */
export interface Question {
  readonly token: string;
  readonly session?: string;
  readonly request: Request;
}

/** Seed 004 `You`: the tab that asked, as a list answers it. */
export interface You {
  readonly tab: string;
  readonly title: string;
  readonly harness: string;
  readonly profile: string;
  readonly workspace: string;
}

/** Seed 004 `Listed`: one tab a message can be sent to. */
export interface Listed {
  readonly tab: string;
  readonly title: string;
  readonly harness: string;
  readonly profile: string;
  readonly network: boolean;
  /** True when the tab reads its messages with `inbox` itself; false when they are offered as its next prompt. */
  readonly inbox: boolean;
  /** Messages sent to it and not yet delivered or taken. */
  readonly waiting: number;
  /** Why waiting messages could not be delivered, in words an agent is shown; null while nothing stops them. */
  readonly trouble: string | null;
}

/** Seed 004 `Received`: a message as the inbox answers it. */
export interface Received {
  readonly from: string;
  readonly tab: string;
  readonly kind: MessageKind;
  readonly text: string;
  readonly sentAt: string;
}

/** Seed 004 `Outcome`: what happened to a message sent to every tab, at one of them. */
export interface Outcome {
  readonly tab: string;
  readonly title: string;
  readonly ok: boolean;
  readonly text: string;
}

/** Seed 004 `Answer`. */
export interface Answer {
  readonly ok: boolean;
  readonly text: string;
  readonly code?: string;
  readonly you?: You;
  readonly tabs?: readonly Listed[];
  readonly messages?: readonly Received[];
  readonly sent?: readonly Outcome[];
}
