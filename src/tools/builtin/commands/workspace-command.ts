import type { ChildProcess } from 'node:child_process';
import { BerthError } from '../../../protocol/errors/index.js';
import { completeUtf8Length, isUtf8Continuation } from '../utf8.js';
import { OutputTail } from './output-tail.js';
import { signalGroup, spawnGroup } from './spawn-group.js';

export interface CommandSpec {
  readonly id: string;
  /** The session that started it; only that session may poll, feed or stop it. */
  readonly owner: string | null;
  readonly command: string;
  readonly cwdAbs: string;
  /** Workspace-relative cwd, for reports (never the absolute path). */
  readonly cwdRel: string;
  readonly timeoutMs: number;
  readonly env: NodeJS.ProcessEnv;
  /** The sandbox program that runs the shell (confinement.ts); none runs it directly. */
  readonly wrapper?: readonly string[];
  readonly maxOutputBytes: number;
  readonly killGraceMs: number;
  readonly startedAt: number;
  /** Called with the clock reading when the shell has exited. */
  readonly now: () => number;
}

/** How a command ended, or that it has not. */
export interface CommandStatus {
  readonly commandId: string;
  readonly running: boolean;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  readonly stopped: boolean;
  readonly error?: string;
}

export interface OutputWindow {
  readonly output: string;
  readonly offset: number;
  readonly nextOffset: number;
  readonly hasMore: boolean;
  readonly totalBytes: number;
  readonly droppedBytes: number;
  /** True when bytes between the requested offset and `offset` were dropped from the bounded buffer. */
  readonly outputDropped: boolean;
}

const lossyDecoder = new TextDecoder('utf-8');

/**
 * One shell command in its own process group. stdout and stderr are combined
 * in arrival order into one bounded tail (what a terminal would show). The
 * command is running until its shell exits; then whatever it left behind in
 * its group is terminated too, so no command outlives its record.
 */
export class WorkspaceCommand {
  readonly id: string;
  readonly owner: string | null;
  readonly startedAt: number;
  finishedAt: number | null = null;
  private readonly child: ChildProcess;
  private readonly output: OutputTail;
  private readonly exited: Promise<void>;
  private exitCode: number | null = null;
  private exitSignal: string | null = null;
  private shellExited = false;
  private spawnError: string | undefined;
  private timedOut = false;
  private stopped = false;
  private terminating = false;
  private markFinished: () => void = () => undefined;
  private rejectStart: (err: BerthError) => void = () => undefined;
  /** Settles once the shell has started, or rejects with `spawn_failed` (the tool's error). */
  readonly started: Promise<void>;
  private readonly timeoutTimer: NodeJS.Timeout;

  constructor(private readonly spec: CommandSpec) {
    this.id = spec.id;
    this.owner = spec.owner;
    this.startedAt = spec.startedAt;
    this.output = new OutputTail(spec.maxOutputBytes);
    this.exited = new Promise((resolve) => {
      this.markFinished = resolve;
    });
    // The 'error' listener goes on before anything else: when the spawn itself
    // fails (EMFILE, ENFILE, EAGAIN, ENOENT) Node emits 'error' on the next tick
    // and, for EMFILE/ENFILE, leaves stdin/stdout/stderr unset.
    this.child = spawnGroup(spec.command, spec.cwdAbs, spec.env, (err) => this.failSpawn(err), spec.wrapper);
    this.started = new Promise((resolve, reject) => {
      this.child.once('spawn', () => resolve());
      this.rejectStart = reject;
    });
    // Whoever does not await the start must not turn its refusal into an unhandled rejection.
    this.started.catch(() => undefined);
    const append = (chunk: Buffer): void => this.output.append(chunk);
    this.child.stdout?.on('data', append);
    this.child.stderr?.on('data', append);
    // A command that closes its stdin early must not crash the daemon when input arrives.
    this.child.stdin?.on('error', () => undefined);
    this.child.once('exit', (code, signal) => {
      this.exitCode = code;
      this.exitSignal = signal;
      this.shellExited = true;
      clearTimeout(this.timeoutTimer);
      this.child.stdin?.destroy();
      // The shell is gone; anything it left running in its group goes too.
      this.terminate();
    });
    // Finished only once the pipes are drained, so the last poll sees all the output.
    this.child.once('close', () => this.finish());
    this.timeoutTimer = setTimeout(() => {
      if (this.shellExited) return;
      this.timedOut = true;
      this.terminate();
    }, spec.timeoutMs);
    this.timeoutTimer.unref();
  }

  get running(): boolean {
    return this.finishedAt === null;
  }

  status(): CommandStatus {
    return {
      commandId: this.id,
      running: this.running,
      exitCode: this.exitCode,
      signal: this.exitSignal,
      timedOut: this.timedOut,
      stopped: this.stopped,
      ...(this.spawnError ? { error: this.spawnError } : {}),
    };
  }

  /** Output from byte `offset`, at most `maxBytes`, never ending inside a character while more may come. */
  read(offset: number, maxBytes: number): OutputWindow {
    const held = this.output.read(offset, maxBytes);
    let skip = 0;
    while (skip < 3 && skip < held.bytes.length && isUtf8Continuation(held.bytes[skip])) skip++;
    const start = held.start + skip;
    let bytes = held.bytes.subarray(skip);
    const total = this.output.totalBytes;
    const atEnd = start + bytes.length === total;
    if (!(atEnd && !this.running)) bytes = bytes.subarray(0, completeUtf8Length(bytes));
    const next = start + bytes.length;
    return {
      output: lossyDecoder.decode(bytes),
      offset: start,
      nextOffset: next,
      hasMore: next < total,
      totalBytes: total,
      droppedBytes: this.output.droppedBytes,
      outputDropped: offset < held.start,
    };
  }

  /** Writes to the command's stdin; refuses once the command has ended or closed its input. */
  async write(text: string): Promise<number> {
    const stdin = this.child.stdin;
    if (this.shellExited || !stdin || stdin.destroyed || stdin.writableEnded) throw notRunning(this.id);
    const bytes = Buffer.from(text, 'utf8');
    await new Promise<void>((resolve, reject) => {
      stdin.write(bytes, (err) => (err ? reject(notRunning(this.id)) : resolve()));
    });
    return bytes.length;
  }

  /** Stops the command (SIGTERM to its group, SIGKILL after the grace) and waits until its shell has exited. */
  async stop(): Promise<void> {
    if (!this.shellExited) {
      this.stopped = true;
      this.terminate();
    }
    await this.settled();
  }

  /**
   * Stops the command when `signal` aborts: a command belongs to the turn that
   * started it, so cancelling that turn (or its deadline passing) stops it too
   *. The listener is dropped once the command has exited.
   */
  stopOnAbort(signal: AbortSignal): void {
    if (signal.aborted) {
      void this.stop();
      return;
    }
    const onAbort = () => void this.stop();
    signal.addEventListener('abort', onAbort, { once: true });
    void this.exited.then(() => signal.removeEventListener('abort', onAbort));
  }

  /**
   * Resolves true once the command has finished (its output complete), or false when
   * `ms` pass first or `signal` aborts; the command carries on either way.
   */
  waitFinished(ms: number, signal: AbortSignal): Promise<boolean> {
    if (!this.running) return Promise.resolve(true);
    if (ms <= 0 || signal.aborted) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const done = (finished: boolean): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        resolve(finished);
      };
      const onAbort = (): void => done(false);
      const timer = setTimeout(() => done(false), ms);
      signal.addEventListener('abort', onAbort, { once: true });
      void this.exited.then(() => done(true));
    });
  }

  /** Resolves once the shell has exited, or after the kill grace has long passed (a process stuck in the kernel). */
  settled(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const giveUp = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.spec.killGraceMs * 2);
      timer.unref();
    });
    return Promise.race([this.exited, giveUp]).finally(() => clearTimeout(timer));
  }

  /**
   * SIGTERM to the whole group now, SIGKILL to whatever is left after the grace,
   * and then the pipes are closed even if a process escaped the group holding them.
   */
  terminate(): void {
    if (this.terminating) return;
    this.terminating = true;
    const pid = this.child.pid;
    if (pid === undefined) return;
    const groupAlive = signalGroup(pid, 'SIGTERM');
    const kill = setTimeout(() => {
      if (groupAlive) signalGroup(pid, 'SIGKILL');
      this.child.stdout?.destroy();
      this.child.stderr?.destroy();
      this.child.stdin?.destroy();
      if (this.shellExited) this.finish();
    }, this.spec.killGraceMs);
    kill.unref();
  }

  private failSpawn(err: Error): void {
    if (this.child && this.child.pid !== undefined) return;
    const code = (err as NodeJS.ErrnoException).code;
    this.spawnError = err.message;
    this.shellExited = true;
    clearTimeout(this.timeoutTimer);
    this.finish();
    this.rejectStart(
      new BerthError(
        'spawn_failed',
        `the command could not be started: ${err.message}`,
        { ...(code ? { cause: code } : {}) },
        'try again later; the daemon may be short of file descriptors or processes',
      ),
    );
  }

  private finish(): void {
    if (this.finishedAt !== null) return;
    this.finishedAt = this.spec.now();
    this.markFinished();
  }
}

function notRunning(commandId: string): BerthError {
  return new BerthError('command_not_running', 'the command is not running', { commandId });
}
