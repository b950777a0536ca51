/**
 * The module protocol's shapes (docs/modules.md): what a tab asks, and what Berth
 * answers. Field names and meanings are the seed's; Berth adds `code` to a
 * refusal (a catalogue code a script can branch on) and `sentAt` to a message.
 */

/** The message kinds of the module protocol (docs/modules.md `Kind`); `info` when a question names none. */
export type MessageKind = 'info' | 'question' | 'task' | 'report' | 'answer';

/** docs/modules.md `Kind`, in the order the seed lists them. */
export const KINDS: readonly MessageKind[] = ['info', 'question', 'task', 'report', 'answer'];

/** docs/modules.md `ALL`: the word that sends a message to every other agent tab rather than to one. */
export const ALL = 'all';

/** docs/modules.md `Request`. */
export type Request =
  | { readonly op: 'list' }
  | { readonly op: 'send'; readonly tab: string; readonly text: string; readonly kind: MessageKind }
  | { readonly op: 'inbox' }
  | { readonly op: 'peek' };

/** docs/modules.md `Question`: a token, optionally the conversation it was asked from, and a request. */
export interface Question {
  readonly token: string;
  readonly session?: string;
  readonly request: Request;
}

/** docs/modules.md `You`: the tab that asked, as a list answers it. */
export interface You {
  readonly tab: string;
  readonly title: string;
  readonly harness: string;
  readonly profile: string;
  readonly workspace: string;
}

/** docs/modules.md `Listed`: one tab a message can be sent to. */
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

/** docs/modules.md `Received`: a message as the inbox answers it. */
export interface Received {
  readonly from: string;
  readonly tab: string;
  readonly kind: MessageKind;
  readonly text: string;
  readonly sentAt: string;
}

/** docs/modules.md `Outcome`: what happened to a message sent to every tab, at one of them. */
export interface Outcome {
  readonly tab: string;
  readonly title: string;
  readonly ok: boolean;
  readonly text: string;
}

/** docs/modules.md `Answer`. */
export interface Answer {
  readonly ok: boolean;
  readonly text: string;
  readonly code?: string;
  readonly you?: You;
  readonly tabs?: readonly Listed[];
  readonly messages?: readonly Received[];
  readonly sent?: readonly Outcome[];
}
