import type { ToolAvailability, ToolDefinition, ToolResult } from '../protocol/tools/types.js';
import type { Workspace } from '../workspace/types.js';

// The wire vocabulary of tools lives in protocol/ (the app SDK shares it); re-exported so daemon code has one import.
export {
  FLATTENED_STRING,
  POLICIES,
  policyAllows,
  policyRank,
  type ArgumentEncoding,
  type JsonSchema,
  type Policy,
  type ToolAnnotations,
  type ToolAvailability,
  type ToolContent,
  type ToolDefinition,
  type ToolOutcome,
  type ToolResult,
} from '../protocol/tools/types.js';

/** A question for the owner (`workspace_ask`), answered through the permission hook. */
export interface OwnerQuestion {
  readonly callId: string;
  readonly question: string;
}

/** Everything a running tool may use; nothing else (no session objects, no HTTP). */
export interface ToolContext {
  readonly callId: string;
  readonly sessionId: string | null;
  readonly workspace: Workspace;
  readonly signal: AbortSignal;
  /** Asks the owner and waits for the answer text; rejects with a BerthError when unanswered. */
  ask(question: OwnerQuestion): Promise<string>;
}

/** A tool that can run: a definition plus its implementation on some host. */
export interface Tool extends ToolDefinition {
  availability?(): ToolAvailability;
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult>;
}

