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
