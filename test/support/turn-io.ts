import type { ContentBlock, DriverToolCall, SessionUpdate, TurnIO } from '../../src/agents/driver.js';
import type { ToolDefinition, ToolOutcome } from '../../src/tools/types.js';

export interface RecordingTurnIO extends TurnIO {
  /** Every update the driver emitted, in order. */
  readonly updates: SessionUpdate[];
  /** Every tool call the driver asked the session to run, in order. */
  readonly calls: DriverToolCall[];
  readonly controller: AbortController;
}

export interface RecordingTurnIOOptions {
  readonly prompt?: readonly ContentBlock[] | string;
  readonly tools?: readonly ToolDefinition[];
  /** Answers each tool call; default: `{ok:true, result:{value:"done <name>"}}`. */
  readonly answer?: (call: DriverToolCall) => ToolOutcome | Promise<ToolOutcome>;
  /** Called after each emitted update (e.g. to abort once text arrives). */
  readonly onUpdate?: (update: SessionUpdate, io: RecordingTurnIO) => void;
}

/** A TurnIO that plays the session's part for driver tests: records what the driver emits and calls. */
export function recordingTurnIO(options: RecordingTurnIOOptions = {}): RecordingTurnIO {
  const controller = new AbortController();
  const prompt: readonly ContentBlock[] =
    typeof options.prompt === 'string' || options.prompt === undefined
      ? [{ type: 'text', text: options.prompt ?? 'hello' }]
      : options.prompt;
  const io: RecordingTurnIO = {
    sessionId: 'session-test',
    promptId: 'prompt-test',
    prompt,
    signal: controller.signal,
    tools: options.tools ?? [],
    updates: [],
    calls: [],
    controller,
    emit(update) {
      io.updates.push(update);
      options.onUpdate?.(update, io);
    },
    async callTool(call) {
      io.calls.push(call);
      return options.answer ? options.answer(call) : { ok: true, result: { value: `done ${call.name}` } };
    },
    // The built-in agent never asks for itself; external agents' permission requests are tested end to end.
    async askPermission() {
      return { outcome: 'cancelled' };
    },
  };
  return io;
}

/** A minimal read-policy tool definition for driver tests. */
export function toolDef(name: string, properties: Record<string, unknown> = { path: { type: 'string' } }): ToolDefinition {
  return {
    name,
    description: `test tool ${name}`,
    category: 'test',
    policy: 'read',
    inputSchema: { type: 'object', properties },
    annotations: { readOnlyHint: true },
  };
}
