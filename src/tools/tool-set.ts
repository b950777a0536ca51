import { runBatch, type BatchReport, type BatchRequest } from '../protocol/tools/batch.js';
import { answerCatalogQuery, type CatalogPayload } from '../protocol/tools/catalog.js';
import type { CatalogQuery } from '../protocol/tools/catalog-query.js';
import { ToolExecutor, type ExecutorDeps, type ToolCall } from './executor.js';
import { guardPermits, type ToolGuard } from '../protocol/tools/guard.js';
import type { Tool, ToolDefinition, ToolOutcome } from './types.js';

export interface BatchOptions {
  /** The batch's own id (the envelope id); a call without a `callId` gets `<batchId>#<index>`. */
  readonly batchId: string;
  readonly signal?: AbortSignal;
}

/**
 * The tools one caller works with — a workspace's tools under one guard, for
 * one session or owner — and the executor that runs them. Cheap to build:
 * make a new one when the guard changes (a session switching to plan mode).
 */
export class ToolSet {
  readonly guard: ToolGuard;
  private readonly byName: ReadonlyMap<string, Tool>;
  private readonly executor: ToolExecutor;

  constructor(
    tools: readonly Tool[],
    deps: Omit<ExecutorDeps, 'tools'>,
    private readonly now: () => number,
  ) {
    const byName = new Map<string, Tool>();
    for (const tool of tools) {
      if (byName.has(tool.name)) throw new Error(`two tools are named ${tool.name}`);
      byName.set(tool.name, tool);
    }
    this.byName = byName;
    this.guard = deps.guard;
    this.executor = new ToolExecutor({ ...deps, tools: { get: (name) => byName.get(name) } });
  }

  /** Every tool of the set, visible or not. */
  all(): readonly Tool[] {
    return [...this.byName.values()];
  }

  /** The definitions the guard lets this caller see (what a driver offers its model). */
  definitions(): ToolDefinition[] {
    return this.all().filter((t) => guardPermits(this.guard, t));
  }

  /** A docs/tool-protocol.md `tool.catalog` payload for this caller. */
  catalog(query: CatalogQuery = {}): CatalogPayload {
    return answerCatalogQuery(this.all(), this.guard, query, this.now());
  }

  call(call: ToolCall, signal?: AbortSignal): Promise<ToolOutcome> {
    return this.executor.call(call, signal);
  }

  batch(request: BatchRequest, options: BatchOptions): Promise<BatchReport> {
    return runBatch(
      request,
      (c, index) =>
        this.executor.call(
          { callId: c.callId ?? `${options.batchId}#${index}`, name: c.toolId, args: c.arguments ?? {} },
          options.signal,
        ),
      options.signal,
    );
  }
}
