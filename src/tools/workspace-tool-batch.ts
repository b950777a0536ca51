import { MAX_BATCH_CALLS, MAX_CALL_ID_CHARS, MAX_TOOL_NAME_CHARS } from '../protocol/limits.js';
import { BerthError } from '../protocol/errors/index.js';
import type { BatchItem, BatchReport } from '../protocol/tools/batch.js';
import type { BatchingTool } from './dispatch.js';
import type { ToolResult } from './types.js';
import type { ApplicationScope } from './workspace-tools.js';

export const WORKSPACE_TOOL_BATCH = 'workspace_tool_batch';

interface BatchArgs {
  readonly calls: readonly { readonly name: string; readonly arguments: Record<string, unknown>; readonly callId?: string }[];
  readonly continueOnError?: boolean;
}

/**
 * `workspace_tool_batch` (Berth's, beside the contract's `workspace_tool`): several
 * calls of one application's tools sent as one `tool.batch`, which
 * the application runs in order. The executor judges each call as
 * `workspace_tool` would — schema, guard, and for a write or critical one
 * permission — all before anything is sent; the batch then has one receipt.
 * One application per batch, because one `tool.batch` goes to one application.
 * See docs/workspace-tools.md.
 */
export function workspaceToolBatchTool(scope: ApplicationScope): BatchingTool {
  const resolve = (args: Record<string, unknown>) => {
    const { calls } = args as unknown as BatchArgs;
    const targets = calls.map((c) => {
      const tool = scope.applications.get(scope.workspaceId, c.name);
      if (!tool) throw new BerthError('unknown_tool', `No application tool named ${c.name}; call workspace_tools to list them`, { tool: c.name });
      return { tool, args: c.arguments, applicationId: scope.applications.applicationOf(scope.workspaceId, c.name)! };
    });
    const applications = new Set(targets.map((t) => t.applicationId));
    if (applications.size > 1) {
      throw new BerthError('invalid_arguments', `A batch goes to one application; these calls name tools of ${[...applications].sort().join(', ')}`);
    }
    return { targets, applicationId: targets[0]!.applicationId };
  };
  return {
    name: WORKSPACE_TOOL_BATCH,
    description:
      'Invoke several tools returned by workspace_tools in one round trip: 1 to 32 calls of one application, which runs them in order ' +
      'and stops at the first failure unless continueOnError. Each call is checked, and asked about when it writes, before any of them runs.',
    category: 'workspace',
    policy: 'read',
    inputSchema: BATCH_INPUT,
    annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    resolveBatch: (args) => resolve(args).targets,
    async run(args, ctx): Promise<ToolResult> {
      const { calls, continueOnError } = args as unknown as BatchArgs;
      const { applicationId } = resolve(args);
      const link = scope.applications.link(scope.workspaceId, applicationId);
      if (!link) throw new BerthError('application_disconnected', `Application ${applicationId} is not connected`, { application: applicationId });
      const report = await link.batch(
        {
          calls: calls.map((c) => ({ ...(c.callId !== undefined ? { callId: c.callId } : {}), toolId: c.name, arguments: c.arguments })),
          ...(continueOnError !== undefined ? { continueOnError } : {}),
        },
        { sessionId: ctx.sessionId, signal: ctx.signal },
      );
      return { value: reportValue(report) };
    },
  };
}

/** The report as the agent reads it: each call's result (or error) by its index and name, in order. */
function reportValue(report: BatchReport): Record<string, unknown> {
  const item = (r: BatchItem) => ({
    index: r.index,
    name: r.toolId,
    ...(r.callId !== undefined ? { callId: r.callId } : {}),
    ...(r.outcome.ok ? { ok: true, ...(r.outcome.result.value as Record<string, unknown>) } : { ok: false, error: r.outcome.error }),
  });
  return {
    success: report.success,
    completed: report.completed,
    requested: report.requested,
    stoppedEarly: report.stoppedEarly,
    results: report.results.map(item),
  };
}

const BATCH_INPUT = {
  type: 'object',
  properties: {
    calls: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_BATCH_CALLS,
      items: {
        type: 'object',
        properties: {
          name: { type: 'string', minLength: 1, maxLength: MAX_TOOL_NAME_CHARS },
          arguments: { type: 'object' },
          callId: { type: 'string', minLength: 1, maxLength: MAX_CALL_ID_CHARS, description: 'Optional: your name for this call, echoed in its result' },
        },
        required: ['name', 'arguments'],
        additionalProperties: false,
      },
    },
    continueOnError: { type: 'boolean', description: 'Run the later calls even after one fails (default false)' },
  },
  required: ['calls'],
  additionalProperties: false,
};
