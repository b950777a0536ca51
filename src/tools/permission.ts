import { BerthError } from '../protocol/errors/index.js';
import type { Workspace } from '../workspace/types.js';
import type { OwnerQuestion, ToolDefinition } from './types.js';

/** What the executor asks before a write or critical call runs (docs/architecture.md, How a prompt flows). */
export interface PermissionRequest {
  readonly namespace: string;
  readonly callId: string;
  readonly sessionId: string | null;
  readonly workspace: Workspace;
  /** The tool that will run (for `workspace_tool`, the target application tool). */
  readonly tool: ToolDefinition;
  readonly args: Record<string, unknown>;
  /** The tool the caller named when it differs from `tool` (`workspace_tool`). */
  readonly via?: string;
  readonly signal: AbortSignal;
}

/** A person's (or a policy's) answer to "may this call run?" */
export type PermissionDecision =
  /** `reason`: why it runs without a person's vote (an allow-list rule, a remembered "always"), when that is so. */
  | { readonly allow: true; readonly reason?: string }
  | { readonly allow: false; readonly reason: string };

/**
 * Decides one write/critical call. Sessions wire it to their approval mode and
 * pending interactions; it may wait for a person, and should give up when
 * `signal` aborts.
 */
export type PermissionHook = (request: PermissionRequest) => Promise<PermissionDecision>;

/** Context handed along with an owner question. */
export interface AskRequest {
  readonly namespace: string;
  readonly sessionId: string | null;
  readonly workspace: Workspace;
  readonly signal: AbortSignal;
}

/** Puts a `workspace_ask` question to a person and resolves with the answer text. */
export type AskHook = (question: OwnerQuestion, request: AskRequest) => Promise<string>;

/**
 * For callers whose authority was settled before the call reached the
 * executor (a token's max policy, an owner's own channel): every call that
 * passed the guard runs without asking.
 */
export const allowWithoutAsking: PermissionHook = async () => ({ allow: true });

/** For callers with nobody to answer questions: `workspace_ask` fails with `question_unanswered`. */
export const nobodyToAsk: AskHook = async () => {
  throw new BerthError('question_unanswered', 'Nobody is attached to answer questions for this caller');
};
