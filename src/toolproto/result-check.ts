import { asBerthError } from '../protocol/errors/index.js';
import { validateResult } from '../protocol/tools/arguments.js';
import type { BatchReport } from '../protocol/tools/batch.js';
import type { ToolDefinition, ToolOutcome } from '../tools/types.js';
import type { WireSuccess } from '../protocol/toolproto/outcomes.js';

/** The current definition of an application tool by id, or undefined when it is not published. */
export type DefinitionLookup = (toolId: string) => Pick<ToolDefinition, 'name' | 'outputSchema'> | undefined;

/**
 * docs/tool-protocol.md: results are checked against the tool's published schema. The
 * application's SDK should have checked already; the daemon checks again,
 * because any program can speak the protocol. A result that does not match
 * is `tool_failed` (tools/arguments.ts `validateResult`).
 */
export function assertResultMatches(lookup: DefinitionLookup, toolId: string, reply: WireSuccess): void {
  const def = lookup(toolId);
  if (def) validateResult(def, reply.result ?? null);
}

/** A batch report with every successful item checked the same way; one that fails makes the batch unsuccessful. */
export function checkedReport(lookup: DefinitionLookup, report: BatchReport): BatchReport {
  let failed = false;
  const results = report.results.map((item) => {
    if (!item.outcome.ok) return item;
    const value = item.outcome.result.value as { result?: unknown };
    try {
      assertResultMatches(lookup, item.toolId, { success: true, result: value.result });
      return item;
    } catch (err) {
      failed = true;
      const outcome: ToolOutcome = { ok: false, error: asBerthError(err).toFrameError() };
      return { ...item, outcome };
    }
  });
  return failed ? { ...report, success: false, results } : report;
}
