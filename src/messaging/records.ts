import type { MessageKind } from './types.js';

/**
 * What the module protocol keeps durably (migration 6), and the repositories it
 * keeps it in: the messaging module's own interfaces, which `store/` implements.
 */

/** One message waiting in a tab's inbox (migration 6). */
export interface InboxMessage {
  readonly id: string;
  readonly toSessionId: string;
  readonly fromSessionId: string;
  readonly fromTab: number;
  /** How the sender is named to the receiver, e.g. `built-in · reviewer`. */
  readonly fromLabel: string;
  readonly kind: MessageKind;
  readonly text: string;
  /** The message's step in its chain of messages (src/messaging/rules.ts). */
  readonly hop: number;
  readonly sentAt: number;
}

/** Tab inboxes. */
export interface ModuleInboxRepository {
  add(message: InboxMessage): Promise<void>;
  /** The session's messages, oldest first, without taking them. */
  list(sessionId: string): Promise<InboxMessage[]>;
  /** The oldest message, without taking it. */
  oldest(sessionId: string): Promise<InboxMessage | undefined>;
  count(sessionId: string): Promise<number>;
  /**
   * Takes every message of the session, oldest first. `open`: the session runs on this node, so
   * its run takes them (fenced by its lease on a cluster node); else the node takes them for it.
   */
  takeAll(sessionId: string, open: boolean): Promise<InboxMessage[]>;
  /** Takes one message by id for its receiver `sessionId`, open on this node; false when it was already gone. */
  take(id: string, sessionId: string): Promise<boolean>;
}

/** Tab numbers and module-token hashes. */
export interface ModuleTabRepository {
  /** The session's tab number and workspace, or undefined when it never had a tab. */
  find(sessionId: string): Promise<{ tab: number; workspaceId: string } | undefined>;
  /** Gives the session the next free number of its workspace (numbers are never reused); idempotent. */
  assign(sessionId: string, workspaceId: string, now: number): Promise<number>;
  /** Sessions a token hash speaks for. */
  sessionsForToken(hash: string): Promise<string[]>;
  /** Whether the session holds any token. */
  hasToken(sessionId: string): Promise<boolean>;
  /** Makes `hash` speak for each of `sessionIds`, after dropping what they held before. */
  replaceTokens(hash: string, sessionIds: readonly string[], now: number): Promise<void>;
  /** Makes `hash` speak for `sessionId` as well; the tokens it held keep working. */
  addToken(hash: string, sessionId: string, now: number): Promise<void>;
}
