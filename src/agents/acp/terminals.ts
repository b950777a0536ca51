import * as acp from '@agentclientprotocol/sdk';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FsBridge, ToolRunner } from './fs-bridge.js';
import { resultOf } from './fs-bridge.js';

/** How often `terminal/wait_for_exit` asks the command manager whether the command ended. */
const EXIT_POLL_MS = 50;

interface Terminal {
  readonly commandId: string;
  readonly limit: number | null;
  output: string;
  offset: number;
  truncated: boolean;
  exit: acp.TerminalExitStatus | null;
}

/** A POSIX shell word for any string. */
function quote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * An agent's `terminal/*` requests (issue 12) served by the session's command
 * tools (`workspace_exec`, `workspace_poll`, `workspace_stop`), so commands run
 * confined like the built-in agent's, under the session's approval mode, and
 * are stopped with the session. Terminal ids are the command ids.
 */
export class Terminals {
  private readonly open = new Map<string, Terminal>();

  constructor(private readonly fs: FsBridge) {}

  async create(run: ToolRunner, params: acp.CreateTerminalRequest, approved: boolean): Promise<acp.CreateTerminalResponse> {
    const assignments = (params.env ?? []).map((v) => `${v.name}=${quote(v.value)}`);
    const command = [...(assignments.length > 0 ? ['env', ...assignments] : []), quote(params.command), ...(params.args ?? []).map(quote)].join(' ');
    const args: Record<string, unknown> = { command };
    if (params.cwd) args.cwd = this.fs.relative(params.cwd);
    const value = resultOf(await run('workspace_exec', args, { announce: false, approved }));
    const commandId = String(value.commandId);
    this.open.set(commandId, { commandId, limit: params.outputByteLimit ?? null, output: '', offset: 0, truncated: false, exit: null });
    return { terminalId: commandId };
  }

  async output(run: ToolRunner, params: acp.TerminalOutputRequest): Promise<acp.TerminalOutputResponse> {
    const t = await this.refresh(run, params.terminalId);
    return { output: t.output, truncated: t.truncated, ...(t.exit ? { exitStatus: t.exit } : {}) };
  }

  async waitForExit(run: ToolRunner, params: acp.WaitForTerminalExitRequest, signal: AbortSignal): Promise<acp.WaitForTerminalExitResponse> {
    for (;;) {
      const t = await this.refresh(run, params.terminalId);
      if (t.exit) return t.exit;
      await sleep(EXIT_POLL_MS, undefined, { signal });
    }
  }

  async kill(run: ToolRunner, params: acp.KillTerminalRequest): Promise<acp.KillTerminalResponse> {
    const t = this.get(params.terminalId);
    if (!t.exit) resultOf(await run('workspace_stop', { commandId: t.commandId }, { announce: false }));
    return {};
  }

  async release(run: ToolRunner, params: acp.ReleaseTerminalRequest): Promise<acp.ReleaseTerminalResponse> {
    await this.kill(run, params);
    this.open.delete(params.terminalId);
    return {};
  }

  private get(terminalId: string): Terminal {
    const t = this.open.get(terminalId);
    if (!t) throw acp.RequestError.invalidParams({ terminalId }, 'unknown terminal');
    return t;
  }

  /** Reads what the command printed since the last read, keeping at most `outputByteLimit` bytes (the newest). */
  private async refresh(run: ToolRunner, terminalId: string): Promise<Terminal> {
    const t = this.get(terminalId);
    for (;;) {
      const v = resultOf(await run('workspace_poll', { commandId: t.commandId, offset: t.offset }, { announce: false }));
      t.output += String(v.output ?? '');
      t.offset = Number(v.nextOffset ?? t.offset);
      if (v.outputDropped === true) t.truncated = true;
      if (!v.running) t.exit = { exitCode: typeof v.exitCode === 'number' ? v.exitCode : null, signal: typeof v.signal === 'string' ? v.signal : null };
      if (!v.hasMore) break;
    }
    if (t.limit !== null && Buffer.byteLength(t.output) > t.limit) {
      const bytes = Buffer.from(t.output);
      t.output = bytes.subarray(bytes.length - t.limit).toString('utf8').replace(/^\uFFFD+/, '');
      t.truncated = true;
    }
    return t;
  }
}
