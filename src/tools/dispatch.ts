import type { Tool } from './types.js';

/**
 * A tool that stands for another one chosen by its arguments: `workspace_tool
 * {name, arguments}` (docs/gateway.md) runs an application tool. The executor
 * validates the outer arguments, resolves the target, then treats the call as
 * the target's for validation, guard, permission and receipts (`workspace_tool`
 * takes the target's policy).
 */
export interface DispatchingTool extends Tool {
  /** The target and its arguments; throws `unknown_tool` when there is no such target. */
  resolveTarget(args: Record<string, unknown>): { readonly tool: Tool; readonly args: unknown };
}

export function isDispatching(tool: Tool): tool is DispatchingTool {
  return typeof (tool as Partial<DispatchingTool>).resolveTarget === 'function';
}

/**
 * A tool that stands for several calls of other tools, sent together:
 * `workspace_tool_batch` (a `tool.batch`, docs/tool-protocol.md). The executor validates and
 * guards every target before anything runs, asks permission for each write or
 * critical one in order (any refusal refuses the whole batch), journals the
 * batch under its own call id when any target has an effect, then runs it.
 */
export interface BatchingTool extends Tool {
  /** The targets and their arguments, in order; throws when the batch cannot be sent as one. */
  resolveBatch(args: Record<string, unknown>): readonly { readonly tool: Tool; readonly args: unknown }[];
}

export function isBatching(tool: Tool): tool is BatchingTool {
  return typeof (tool as Partial<BatchingTool>).resolveBatch === 'function';
}
