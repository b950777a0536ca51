import type { DriverToolCall } from '../agents/driver.js';
import type { EventEnvelope, PublishInput, SubscribeOptions, Subscription } from '../events/types.js';
import type { OwnerQuestion, Policy, ToolDefinition, ToolOutcome } from '../tools/types.js';

/**
 * What a session needs from the concepts around it, named as small ports so
 * the session can be read (and tested) without the rest of the daemon.
 */

/** The session's event bus (src/events). */
export interface SessionBus {
  readonly epoch: string;
  readonly lastEventId: number;
  publish(input: PublishInput): EventEnvelope;
  readonly isClosed: boolean;
  subscribe(options: SubscribeOptions): Subscription;
  readonly subscriberCount: number;
  close(): void;
}

/** A person's answer to "may this tool call run?" */
export type PermissionDecision = { readonly allow: true } | { readonly allow: false; readonly reason: string };

export interface PermissionAsk {
  readonly callId: string;
  /** The tool whose policy applies (for `workspace_tool`, the target tool). */
  readonly tool: ToolDefinition;
  readonly args: Record<string, unknown>;
}

export interface ToolRunOptions {
  readonly sessionId: string;
  readonly guard: Policy;
  readonly signal: AbortSignal;
  /** Called for write and critical calls before they run. */
  permission(ask: PermissionAsk): Promise<PermissionDecision>;
  ask(question: OwnerQuestion): Promise<string>;
}

/** The tool layer as a session sees it: the definitions under a guard, and a way to run one call. */
export interface SessionTools {
  definitions(guard: Policy): readonly ToolDefinition[];
  run(call: DriverToolCall, options: ToolRunOptions): Promise<ToolOutcome>;
}

/** Where a session's transcript goes (issue 4): every published event, plus each prompt as admitted. */
export interface TranscriptSink {
  observe(envelope: EventEnvelope): void;
  flush(): void;
}
