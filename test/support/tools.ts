import type { Clock } from '../../src/clock.js';
import { openStore, type Store } from '../../src/store/db.js';
import { ToolExecutor, type ExecutorDeps } from '../../src/tools/executor.js';
import { FULL_ACCESS } from '../../src/protocol/tools/guard.js';
import { allowWithoutAsking } from '../../src/tools/permission.js';
import { ReceiptJournal } from '../../src/tools/receipt-journal.js';
import type { Policy, Tool, ToolAvailability, ToolResult } from '../../src/tools/types.js';
import type { LocalWorkspace } from '../../src/workspace/types.js';
import { removeDir, tempDir } from './tmp.js';
import { sqliteRepositories } from '../../src/main/repositories.js';

/** A clock that stands still unless a test moves it. */
export function fixedClock(start = Date.UTC(2026, 7, 25)): Clock & { advance(ms: number): void } {
  let now = start;
  return { now: () => now, advance: (ms) => (now += ms) };
}

export function fakeWorkspace(root = '/nonexistent-test-root'): LocalWorkspace {
  return { kind: 'local', id: 'ws-test', root, primary: true, trusted: true, displayName: 'test' };
}

export interface TestToolOptions {
  readonly policy?: Policy;
  readonly category?: string;
  readonly description?: string;
  readonly inputSchema?: Record<string, unknown>;
  readonly availability?: () => ToolAvailability;
  readonly run?: (args: Record<string, unknown>) => Promise<ToolResult> | ToolResult;
}

/** A tool whose effects are counted: `runs` grows by one each time it actually runs. */
export function countingTool(name: string, options: TestToolOptions = {}): Tool & { runs: number } {
  const tool = {
    name,
    description: options.description ?? `The ${name} test tool`,
    category: options.category ?? 'test',
    policy: options.policy ?? 'read',
    inputSchema: options.inputSchema ?? {
      type: 'object',
      properties: { text: { type: 'string', maxLength: 10 } },
      additionalProperties: false,
    },
    annotations: {},
    ...(options.availability ? { availability: options.availability } : {}),
    runs: 0,
    async run(args: Record<string, unknown>): Promise<ToolResult> {
      tool.runs += 1;
      return options.run ? options.run(args) : { value: { echoed: args.text ?? null, run: tool.runs } };
    },
  };
  return tool;
}

/** A real SQLite store in a temp home, with its receipt journal. */
export function tempStore(): { store: Store; journal: ReceiptJournal; home: string; close(): void } {
  const home = tempDir('berth-tools-');
  const store = openStore(home);
  const journal = new ReceiptJournal(sqliteRepositories(store.db).receipts);
  return {
    store,
    journal,
    home,
    close() {
      store.close();
      removeDir(home);
    },
  };
}

/** An executor over `tools` with full access and no questions asked, overridable per test. */
export function executorFor(
  tools: readonly Tool[],
  journal: ReceiptJournal,
  overrides: Partial<Omit<ExecutorDeps, 'tools' | 'journal'>> = {},
): ToolExecutor {
  const byName = new Map(tools.map((t) => [t.name, t]));
  return new ToolExecutor({
    tools: { get: (name) => byName.get(name) },
    guard: FULL_ACCESS,
    permission: allowWithoutAsking,
    journal,
    clock: fixedClock(),
    namespace: 'test',
    workspace: fakeWorkspace(),
    sessionId: null,
    ...overrides,
  });
}
