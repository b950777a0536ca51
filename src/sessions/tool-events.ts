import { join } from 'node:path';
import type { ToolOutcome } from '../tools/types.js';
import type { Workspace } from '../workspace/types.js';

/**
 * How a tool call looks on the event stream: ACP `tool_call` /
 * `tool_call_update` payloads (docs/client-api.md §8.1) — kind, title, locations, content.
 */

const KINDS: Record<string, string> = {
  workspace_info: 'read',
  workspace_tools: 'search',
  workspace_list: 'search',
  workspace_read: 'read',
  workspace_image: 'read',
  workspace_document: 'read',
  workspace_write: 'edit',
  workspace_patch: 'edit',
  workspace_delete: 'delete',
  workspace_exec: 'execute',
  workspace_poll: 'execute',
  workspace_input: 'execute',
  workspace_stop: 'execute',
  workspace_ask: 'think',
};

export function toolKind(name: string): string {
  return KINDS[name] ?? 'other';
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

export function toolTitle(name: string, args: Record<string, unknown>): string {
  const path = str(args.path);
  switch (name) {
    case 'workspace_read':
      return `Read ${path ?? ''}`.trim();
    case 'workspace_list':
      return `List ${path ?? '.'}`;
    case 'workspace_write':
      return `Write ${path ?? ''}`.trim();
    case 'workspace_patch':
      return `Edit ${path ?? ''}`.trim();
    case 'workspace_delete':
      return `Delete ${path ?? ''}`.trim();
    case 'workspace_image':
      return `View image ${path ?? ''}`.trim();
    case 'workspace_document':
      return `Read ${path ?? ''} page ${String(args.page ?? 1)}`;
    case 'workspace_exec':
      return `Run ${str(args.command) ?? ''}`.trim();
    case 'workspace_poll':
      return 'Read command output';
    case 'workspace_input':
      return 'Send input to command';
    case 'workspace_stop':
      return 'Stop command';
    case 'workspace_ask':
      return 'Ask the owner';
    case 'workspace_info':
      return 'Workspace info';
    case 'workspace_tools':
      return 'Discover tools';
    case 'workspace_tool':
      return `Tool ${str(args.name) ?? ''}`.trim();
    default:
      return name;
  }
}

/** File locations a client can open; absolute only on a local workspace (a remote label is never a path). */
export function toolLocations(workspace: Workspace, args: Record<string, unknown>): { path: string }[] {
  const path = str(args.path);
  if (!path) return [];
  return [{ path: workspace.kind === 'local' ? join(workspace.root, path) : path }];
}

/** Diff content for edits, so a permission prompt shows what will change. */
export function proposedContent(name: string, args: Record<string, unknown>, workspace: Workspace): unknown[] {
  const path = str(args.path);
  if (!path) return [];
  const shown = workspace.kind === 'local' ? join(workspace.root, path) : path;
  if (name === 'workspace_write' && typeof args.content === 'string') {
    return [{ type: 'diff', path: shown, oldText: null, newText: args.content }];
  }
  if (name === 'workspace_patch' && typeof args.oldText === 'string' && typeof args.newText === 'string') {
    return [{ type: 'diff', path: shown, oldText: args.oldText, newText: args.newText }];
  }
  return [];
}

/** The `tool_call_update` fields that report an outcome. */
export function outcomeUpdate(outcome: ToolOutcome): Record<string, unknown> {
  if (!outcome.ok) {
    return {
      status: 'failed',
      content: [{ type: 'content', content: { type: 'text', text: `${outcome.error.code}: ${outcome.error.message}` } }],
      rawOutput: { error: outcome.error },
    };
  }
  const content: unknown[] = [];
  for (const c of outcome.result.content ?? []) content.push({ type: 'content', content: c });
  if (content.length === 0) {
    const text = typeof outcome.result.value === 'string' ? outcome.result.value : JSON.stringify(outcome.result.value);
    content.push({ type: 'content', content: { type: 'text', text } });
  }
  return { status: 'completed', content, rawOutput: outcome.result.value };
}
