import { stat } from 'node:fs/promises';
import { DEFAULT_EXEC_TIMEOUT_MS, MAX_EXEC_WAIT_MS, MAX_POLL_OUTPUT_BYTES } from '../limits.js';
import { BerthError } from '../../protocol/errors/index.js';
import type { Tool, ToolContext, ToolDefinition, ToolResult } from '../types.js';
import { commandIdArg, optionalInteger, optionalString, requiredString } from './args.js';
import type { CommandManager } from './commands/command-manager.js';
import { mapWorkspaceError } from '../../workspace/fs-errors.js';
import { seedToolDefinition } from './seed-tools.js';
import { confineToolPath, localWorkspaceOf } from './workspace-files.js';

/** docs/gateway.md `workspace_exec.timeoutMs` bounds. */
const MIN_EXEC_TIMEOUT_MS = 1000;
const MAX_EXEC_TIMEOUT_MS = 600_000;

/**
 * Berth's one addition to the seed schema of `workspace_exec` (docs/workspace-tools.md): an
 * optional `waitMs`. Every call the seed schema accepts is still accepted.
 */
const WAIT_MS_PROPERTY = {
  type: 'integer',
  minimum: 0,
  maximum: MAX_EXEC_WAIT_MS,
  description:
    'Berth: wait up to this many milliseconds for the command to finish; if it does, the result holds its exit status and output (still with its commandId). Otherwise the output so far comes back and the command keeps running for workspace_poll.',
} as const;

const POLL_WAIT_MS_PROPERTY = {
  ...WAIT_MS_PROPERTY,
  description:
    'Berth: wait up to this many milliseconds for the command to finish before answering (default 0: answer at once).',
} as const;

/** A seed definition whose schema also accepts an optional `waitMs`; nothing the seed accepted is refused. */
function withWaitMs(seed: ToolDefinition, property: object): ToolDefinition {
  const schema = seed.inputSchema as { properties: Record<string, unknown> };
  return { ...seed, inputSchema: { ...seed.inputSchema, properties: { ...schema.properties, waitMs: property } } };
}

/**
 * `workspace_exec` (docs/gateway.md, docs/workspace-tools.md): start a shell command and wait
 * up to `waitMs` (default `defaultWaitMs`) for it to finish. A command that finishes inside the
 * wait answers with its exit status and output at once (one model round trip instead of two);
 * any other answers with its id (and what it printed so far) and is read with `workspace_poll`.
 * `cwd` is confined to the workspace like any path. The command belongs to the calling session
 * (`ctx.sessionId`) and to the call's turn: it is stopped when the call's signal aborts (a cancel).
 */
export function workspaceExecTool(commands: CommandManager, defaultWaitMs = 0): Tool {
  return {
    ...withWaitMs(seedToolDefinition('workspace_exec', { policy: 'critical', category: 'process' }), WAIT_MS_PROPERTY),
    async run(args, ctx) {
      const ws = localWorkspaceOf(ctx);
      const command = requiredString(args, 'command');
      const cwdArg = optionalString(args, 'cwd') ?? '.';
      const timeoutMs =
        optionalInteger(args, 'timeoutMs', MIN_EXEC_TIMEOUT_MS, MAX_EXEC_TIMEOUT_MS) ?? DEFAULT_EXEC_TIMEOUT_MS;
      const waitMs = optionalInteger(args, 'waitMs', 0, MAX_EXEC_WAIT_MS) ?? defaultWaitMs;
      const cwd = await confineToolPath(ws, cwdArg);
      const st = await stat(cwd.abs).catch((err: unknown) => {
        throw mapWorkspaceError(err, cwd.rel);
      });
      if (!st.isDirectory()) throw new BerthError('not_regular_file', `cwd ${cwd.rel} is not a directory`);
      ctx.signal.throwIfAborted();
      const started = await commands.start({
        owner: ctx.sessionId,
        command,
        cwdAbs: cwd.abs,
        cwdRel: cwd.rel,
        timeoutMs,
        workspace: { id: ws.id, root: ws.root },
      });
      started.stopOnAbort(ctx.signal);
      if (waitMs === 0) return { value: { commandId: started.id, running: true, cwd: cwd.rel, timeoutMs } };
      await started.waitFinished(waitMs, ctx.signal);
      ctx.signal.throwIfAborted();
      // Status first, as in workspace_poll: a command seen finished has all its output in the tail.
      const status = started.status();
      return { value: { ...status, cwd: cwd.rel, timeoutMs, waitedMs: waitMs, ...started.read(0, MAX_POLL_OUTPUT_BYTES) } };
    },
  };
}

/**
 * `workspace_poll` (docs/gateway.md, docs/workspace-tools.md): after waiting up to `waitMs`
 * (default 0) for the command to finish, output from a byte `offset` of the command's
 * combined stdout+stderr, plus its status. Output older than the bounded tail
 * is gone; `outputDropped` says so when the requested offset fell in it.
 */
export function workspacePollTool(commands: CommandManager): Tool {
  return {
    ...withWaitMs(seedToolDefinition('workspace_poll', { policy: 'read', category: 'process' }), POLL_WAIT_MS_PROPERTY),
    async run(args, ctx) {
      const command = commands.get(ctx.sessionId, commandIdArg(args));
      const offset = optionalInteger(args, 'offset', 0, Number.MAX_SAFE_INTEGER) ?? 0;
      const waitMs = optionalInteger(args, 'waitMs', 0, MAX_EXEC_WAIT_MS) ?? 0;
      await command.waitFinished(waitMs, ctx.signal);
      ctx.signal.throwIfAborted();
      // Status first: a command seen finished has all its output in the tail already.
      const status = command.status();
      return { value: { ...status, ...command.read(offset, MAX_POLL_OUTPUT_BYTES) } };
    },
  };
}

/** `workspace_input` (docs/gateway.md): text to a running command's stdin. */
export function workspaceInputTool(commands: CommandManager): Tool {
  return {
    ...seedToolDefinition('workspace_input', { policy: 'critical', category: 'process' }),
    async run(args, ctx) {
      const command = commands.get(ctx.sessionId, commandIdArg(args));
      const text = requiredString(args, 'text');
      const bytes = await command.write(text);
      return { value: { commandId: command.id, bytesWritten: bytes } };
    },
  };
}

/**
 * `workspace_stop` (docs/gateway.md): SIGTERM to the command's whole process group,
 * SIGKILL after the grace; answers once it has ended. Stopping a finished
 * command is not an error: it reports the status it ended with.
 *
 * A `read` tool, as contract/gateway-v1.json's `readOnlyHint` says: it can only stop a command
 * the calling session itself started (`commands.get` answers any other id as
 * `unknown_command`), so it reaches nothing the session could not already
 * end by cancelling its turn. Like every read tool it is not journaled: a
 * repeat asks again, and stopping a finished command only reports it.
 */
export function workspaceStopTool(commands: CommandManager): Tool {
  return {
    ...seedToolDefinition('workspace_stop', { policy: 'read', category: 'process' }),
    async run(args, ctx): Promise<ToolResult> {
      const command = commands.get(ctx.sessionId, commandIdArg(args));
      const wasRunning = command.running;
      await abortable(command.stop(), ctx);
      return { value: { ...command.status(), wasRunning } };
    },
  };
}

/** Waits for `work` unless the call is cancelled first (the work itself carries on). */
function abortable<T>(work: Promise<T>, ctx: ToolContext): Promise<T> {
  ctx.signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(ctx.signal.reason);
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => ctx.signal.removeEventListener('abort', onAbort));
  });
}
