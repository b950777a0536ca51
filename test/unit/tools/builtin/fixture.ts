import assert from 'node:assert/strict';
import { BerthError } from '../../../../src/protocol/errors/index.js';
import { CommandManager, localWorkspaceTools } from '../../../../src/tools/builtin/index.js';
import type { OwnerQuestion, Tool, ToolContext, ToolResult } from '../../../../src/tools/types.js';
import { WorkspaceRegistry } from '../../../../src/workspace/registry.js';
import type { LocalWorkspace } from '../../../../src/workspace/types.js';
import { removeDir, tempDir, writeTree } from '../../../support/tmp.js';

export interface CallOptions {
  readonly sessionId?: string | null;
  readonly answer?: (q: OwnerQuestion) => Promise<string>;
  readonly signal?: AbortSignal;
}

/** A real local workspace on a temp dir with the tool set built over it; tools are called directly. */
export interface ToolFixture {
  readonly root: string;
  readonly workspace: LocalWorkspace;
  readonly commands: CommandManager;
  readonly tools: ReadonlyMap<string, Tool>;
  /** The value a tool returns. */
  call(name: string, args: Record<string, unknown>, options?: CallOptions): Promise<any>;
  /** The whole ToolResult (value + content). */
  result(name: string, args: Record<string, unknown>, options?: CallOptions): Promise<ToolResult>;
  close(): Promise<void>;
}

export const SESSION = '6f1c0b52-7a4e-4d3b-9c5e-2b8a1d0e9f11';

export function toolFixture(files: Record<string, string | Buffer> = {}, commands?: CommandManager): ToolFixture {
  const root = tempDir('berth-tools-');
  writeTree(root, files);
  const workspace = new WorkspaceRegistry([root]).primary();
  const manager = commands ?? new CommandManager({ clock: { now: () => Date.now() } });
  const tools = new Map(localWorkspaceTools({ commands: manager }).map((t) => [t.name, t]));
  let calls = 0;
  const result = (name: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<ToolResult> => {
    const tool = tools.get(name);
    if (!tool) throw new Error(`no tool ${name}`);
    const ctx: ToolContext = {
      callId: `call-${++calls}`,
      sessionId: options.sessionId === undefined ? SESSION : options.sessionId,
      workspace,
      signal: options.signal ?? new AbortController().signal,
      ask: options.answer ?? (() => Promise.reject(new BerthError('question_unanswered'))),
    };
    return tool.run(args, ctx);
  };
  return {
    root,
    workspace,
    commands: manager,
    tools,
    result,
    call: async (name, args, options) => (await result(name, args, options)).value,
    async close() {
      await manager.dispose();
      removeDir(root);
    },
  };
}

/** Asserts that `work` rejects with a BerthError of `code`; returns it for further checks. */
export async function refusedWith(work: Promise<unknown>, code: string): Promise<BerthError> {
  let caught: unknown;
  try {
    await work;
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof BerthError, `expected BerthError ${code}, got ${caught === undefined ? 'success' : String(caught)}`);
  assert.equal(caught.code, code, caught.message);
  return caught;
}

/** Waits until `condition` holds, checking every few ms; fails after a generous deadline (no timing assertion). */
export async function eventually(condition: () => boolean | Promise<boolean>, what: string, deadlineMs = 20_000): Promise<void> {
  const until = Date.now() + deadlineMs;
  while (!(await condition())) {
    if (Date.now() > until) assert.fail(`gave up waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
