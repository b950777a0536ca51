import type { Policy, ToolDefinition, ToolOutcome } from '../tools/types.js';

/**
 * ACP `SessionUpdate` payloads (docs/client-api.md §8.1), emitted by a driver as a turn runs:
 * `user_message_chunk`, `agent_message_chunk`, `agent_thought_chunk`,
 * `tool_call`, `tool_call_update`, `plan`, … The session wraps each one as a
 * `session_update` event `{sessionId, update}`.
 */
export type SessionUpdate = { readonly sessionUpdate: string } & Record<string, unknown>;

/** An ACP content block (`{type:"text",text}`, `{type:"image",data,mimeType}`, …). */
export type ContentBlock = { readonly type: string } & Record<string, unknown>;

/**
 * The token counts of model requests in qwen's names (docs/client-api.md §8.1), as a driver
 * reports one request's in its usage chunk and the session sums them; with a price table in
 * config.json, what they cost.
 */
export interface TokenUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly totalTokens: number;
  readonly thoughtTokens: number;
  readonly cachedReadTokens: number;
  readonly cost?: { readonly amount: number; readonly currency: string };
}

/** A tool call the driver wants run; the session runs it through the executor (guard, permission, receipts). */
export interface DriverToolCall {
  /** Unique within the session; used as the ACP `toolCallId` and the executor call id. */
  readonly toolCallId: string;
  readonly name: string;
  readonly args: Record<string, unknown>;
}

/** What the session lends a driver for one turn. */
export interface TurnIO {
  readonly sessionId: string;
  readonly promptId: string;
  readonly prompt: readonly ContentBlock[];
  readonly signal: AbortSignal;
  /** Tools visible to this turn (already filtered by the session's guard). */
  readonly tools: readonly ToolDefinition[];
  emit(update: SessionUpdate): void;
  /**
   * Runs a tool call. The session emits the `tool_call` / permission /
   * `tool_call_update` events around it, so a driver only decides what to call
   * and how to feed the outcome back to its model.
   */
  callTool(call: DriverToolCall, options?: CallOptions): Promise<ToolOutcome>;
  /**
   * An external agent's own permission request (issue 12): the session's approval
   * mode and remembered "always" choices decide, else a person picks one of the
   * agent's options. Answers with an option the agent offered, or cancelled.
   */
  askPermission(request: AgentPermissionRequest): Promise<AgentPermissionOutcome>;
  /**
   * Messages a person typed while this turn ran (`POST /session/{id}/mid-turn-message`), taken once each:
   * a driver that can add a user message between its model requests asks before each request after the
   * first and sends them as user messages. One that cannot never asks; the session then runs them as
   * prompts of their own when the turn ends.
   */
  takeMidTurnMessages?(): readonly (readonly ContentBlock[])[];
}

/** How an external agent's effect runs through the tool layer (its `fs/*` requests). */
export interface CallOptions {
  /** false: the session emits no `tool_call` events of its own (the agent announced the call itself). */
  readonly announce?: boolean;
  /** true: a person (or the approval mode) already allowed this through the agent's permission request. */
  readonly approved?: boolean;
}

/** An ACP permission option as the agent offers it. */
export interface AgentPermissionOption {
  readonly optionId: string;
  readonly name: string;
  readonly kind: 'allow_once' | 'allow_always' | 'reject_once' | 'reject_always';
}

export interface AgentPermissionRequest {
  /** The agent's ToolCallUpdate, shown to clients as the request's `toolCall`. */
  readonly toolCall: Record<string, unknown>;
  readonly options: readonly AgentPermissionOption[];
  /** What the call would do, as the approval mode weighs it. */
  readonly policy: Policy;
  /** The key "always" choices are remembered under. */
  readonly rememberAs: string;
}

export type AgentPermissionOutcome = { readonly outcome: 'cancelled' } | { readonly outcome: 'selected'; readonly optionId: string };

/** How an agent process ended (`session_died` `{reason, exitCode, signalCode}`). */
export interface AgentExit {
  readonly reason: string;
  readonly exitCode: number | null;
  readonly signalCode: string | null;
}

export interface TurnResult {
  /** ACP stop reason: end_turn, max_tokens, max_turn_requests, refusal, cancelled. */
  readonly stopReason: string;
}

/** One conversation's record as the driver needs it to rebuild its model context. */
export type HistoryItem =
  | { readonly kind: 'user'; readonly content: readonly ContentBlock[] }
  | { readonly kind: 'assistant'; readonly text: string; readonly toolCalls: readonly DriverToolCall[] }
  | { readonly kind: 'tool_result'; readonly toolCallId: string; readonly outcome: ToolOutcome }
  /** The context was compacted here: what came before is replaced by `summary`, the last `keptTurns` user turns kept. */
  | { readonly kind: 'compaction'; readonly summary: string; readonly keptTurns: number };

/** Model/mode state as `SessionState` shows it (docs/client-api.md §5.3/§5.9). */
export interface DriverState {
  readonly models: { readonly currentModelId: string | null; readonly availableModels: readonly ModelInfo[] };
}

export interface ModelInfo {
  readonly modelId: string;
  readonly name: string;
  readonly description?: string;
}

/**
 * Turns a prompt into session updates (docs/architecture.md, Agent driver). One driver
 * instance per session; turns never overlap (the session's FIFO guarantees it).
 */
export interface AgentDriver {
  /** The harness name modules report (`built-in`, or an external agent's name). */
  readonly harness: string;
  runTurn(io: TurnIO): Promise<TurnResult>;
  state(): DriverState;
  /** Switches the model; rejects with BerthError `model_not_found` for unknown ids. */
  setModel(modelId: string): Promise<void>;
  /**
   * Compacts the model context now (`/compact`, `POST /session/{id}/compact`); answers what it
   * did, in a sentence for the person who asked. Absent when the agent cannot.
   */
  compact?(io: Pick<TurnIO, 'signal' | 'emit'>): Promise<string>;
  /** Rebuilds the model context from a persisted conversation (load/resume). */
  restore(history: readonly HistoryItem[]): void;
  /** External agents: updates sent between turns (e.g. the commands it offers), which the session publishes as they come. */
  onUpdate?(listener: (update: SessionUpdate) => void): void;
  /** External agents: told when the agent process dies on its own (the session then publishes `session_died`). */
  onExit?(listener: (exit: AgentExit) => void): void;
  dispose(): void;
}
