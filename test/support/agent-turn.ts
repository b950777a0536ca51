import { EventReader, newSession, submit } from './session-client.js';
import type { Stack } from './stack.js';

/** What the model was told each tool call returned, by the call id it chose, parsed from the tool message. */
export type ToolReplies = Record<string, any>;

/**
 * Runs one prompt in a new yolo session (nothing asks) whose scripted model
 * makes `calls` in one reply, then ends the turn; returns what the model saw
 * for each call, parsed.
 */
export async function agentTurn(stack: Stack, calls: { id: string; name: string; arguments: Record<string, unknown> }[]): Promise<ToolReplies> {
  const d = stack.daemon;
  const { sessionId } = await newSession(d, { approvalMode: 'yolo' });
  const events = await EventReader.open(d, sessionId);
  stack.model.enqueue({ kind: 'reply', toolCalls: calls }, { kind: 'reply', text: 'done' });
  const submitted = await submit(d, sessionId, 'use the tools');
  if (submitted.status !== 202) throw new Error(`prompt refused: ${JSON.stringify(submitted.body)}`);
  const terminal = await events.terminal(submitted.body.promptId);
  events.close();
  if (terminal.type !== 'turn_complete') throw new Error(`the turn ended with ${JSON.stringify(terminal)}`);
  const last = stack.model.completions().at(-1)!;
  const replies: ToolReplies = {};
  for (const m of last.messages as { role: string; tool_call_id?: string; content: unknown }[]) {
    if (m.role === 'tool' && m.tool_call_id) replies[m.tool_call_id] = JSON.parse(String(m.content));
  }
  return replies;
}
