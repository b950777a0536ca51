import type { Clock } from '../clock.js';
import { MAX_CALL_ID_CHARS } from '../protocol/limits.js';
import { BerthError, asBerthError } from '../protocol/errors/index.js';
import type { Workspace } from '../workspace/types.js';
import { validateArguments } from '../protocol/tools/arguments.js';
import { sha256Revision } from '../protocol/tools/canonical-json.js';
import { availabilityOf, wireRuntime } from '../protocol/tools/definitions.js';
import { isBatching, isDispatching, type BatchingTool } from './dispatch.js';
import { assertGuardPermits, type ToolGuard } from '../protocol/tools/guard.js';
import { nobodyToAsk, type AskHook, type PermissionHook } from './permission.js';
import type { ReceiptJournal } from './receipt-journal.js';
import type { Tool, ToolContext, ToolOutcome } from './types.js';

export interface ToolLookup {
  get(name: string): Tool | undefined;
}

/** Everything one executor works with; time, storage and people are passed in. */
export interface ExecutorDeps {
  readonly tools: ToolLookup;
  readonly guard: ToolGuard;
  readonly permission: PermissionHook;
  readonly ask?: AskHook;
  readonly journal: ReceiptJournal;
  readonly clock: Clock;
  /** The receipt id space: a session, the gateway owner, an application. */
  readonly namespace: string;
  readonly workspace: Workspace;
  readonly sessionId: string | null;
}

export interface ToolCall {
  /** Unique within the namespace; a repeat returns the stored outcome of a write/critical call. */
  readonly callId: string;
  readonly name: string;
  readonly args: unknown;
}

const NEVER_ABORTED = new AbortController().signal;

/**
 * Runs tool calls (docs/architecture.md, Tool host): validate arguments → guard →
 * permission (write/critical) → receipt `executing` → run → receipt result →
 * outcome. Availability is evaluated again just before running (docs/tool-protocol.md).
 * Every refusal comes back as an outcome; `call` never throws.
 */
export class ToolExecutor {
  constructor(private readonly deps: ExecutorDeps) {}

  async call(call: ToolCall, signal: AbortSignal = NEVER_ABORTED): Promise<ToolOutcome> {
    try {
      return await this.execute(call, signal);
    } catch (err) {
      return failure(err);
    }
  }

  private async execute(call: ToolCall, signal: AbortSignal): Promise<ToolOutcome> {
    if (call.callId.length === 0 || call.callId.length > MAX_CALL_ID_CHARS) {
      throw new BerthError('invalid_request', `A call id has 1 to ${MAX_CALL_ID_CHARS} characters`);
    }
    const named = this.deps.tools.get(call.name);
    if (!named) throw new BerthError('unknown_tool', `No tool named ${call.name}`, { tool: call.name });
    validateArguments(named, call.args);
    if (isBatching(named)) return this.executeBatch(call, named, call.args, signal);
    let tool: Tool = named;
    let args: Record<string, unknown> = call.args;
    if (isDispatching(named)) {
      const target = named.resolveTarget(call.args);
      validateArguments(target.tool, target.args);
      tool = target.tool;
      args = target.args;
    }
    assertGuardPermits(this.deps.guard, tool);
    if (tool.policy === 'read') {
      // Read-only calls have no effect to protect: not journaled, and a repeat runs again.
      this.assertReady(tool, signal);
      return this.run(tool, args, call.callId, signal);
    }
    const via = named === tool ? undefined : named.name;
    return this.executeEffectful(call, tool, args, () => this.permit(call, tool, args, via, signal), signal);
  }

  /**
   * A batch: every target's arguments and guard first, so nothing runs unless
   * all of it may; read-only targets only means nothing to ask or journal.
   */
  private async executeBatch(call: ToolCall, batch: BatchingTool, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolOutcome> {
    const targets = batch.resolveBatch(args);
    for (const target of targets) {
      validateArguments(target.tool, target.args);
      assertGuardPermits(this.deps.guard, target.tool);
    }
    const ready = () => targets.forEach((target) => this.assertReady(target.tool, signal));
    if (targets.every((target) => target.tool.policy === 'read')) {
      ready();
      return this.run(batch, args, call.callId, signal);
    }
    const permitAll = async () => {
      for (const target of targets) {
        if (target.tool.policy !== 'read') await this.permit(call, target.tool, target.args as Record<string, unknown>, batch.name, signal);
      }
      ready();
    };
    return this.executeEffectful(call, batch, args, permitAll, signal);
  }

  /** Asks the permission hook about one call; a refusal throws `permission_rejected`. */
  private async permit(call: ToolCall, tool: Tool, args: Record<string, unknown>, via: string | undefined, signal: AbortSignal): Promise<void> {
    const decision = await this.deps.permission({
      namespace: this.deps.namespace,
      callId: call.callId,
      sessionId: this.deps.sessionId,
      workspace: this.deps.workspace,
      tool,
      args,
      ...(via ? { via } : {}),
      signal,
    });
    if (!decision.allow) {
      throw new BerthError('permission_rejected', decision.reason || `The owner rejected ${tool.name}`, { tool: tool.name });
    }
    this.assertReady(tool, signal);
  }

  private async executeEffectful(
    call: ToolCall,
    tool: Tool,
    args: Record<string, unknown>,
    permit: () => Promise<void>,
    signal: AbortSignal,
  ): Promise<ToolOutcome> {
    const { namespace, journal, clock } = this.deps;
    const argsDigest = sha256Revision(call.args);
    const earlier = await this.earlierOutcome(call, argsDigest);
    if (earlier) return earlier;
    await permit();

    const start = { namespace, callId: call.callId, toolName: call.name, argsDigest, startedAt: clock.now() };
    const outcome = await journal.claim(start, async () => {
      let outcome = await this.run(tool, args, call.callId, signal);
      try {
        // docs/gateway.md constraints: "persist its result before acknowledging it".
        await journal.complete(namespace, call.callId, outcome, clock.now());
      } catch (err) {
        outcome = failure(
          new BerthError('uncertain_effect', `The call ran but its result could not be recorded: ${asBerthError(err).message}`),
        );
      }
      return outcome;
    });
    if (outcome) return outcome;
    // Losing the claim means a concurrent caller wrote the receipt between our lookup and now.
    return (await this.earlierOutcome(call, argsDigest)) ?? failure(new BerthError('internal_error', 'Receipt claim lost'));
  }

  /**
   * What an earlier attempt of this call id settles to: its stored outcome
   * (replayed), the outcome of the same call still running here, or
   * `uncertain_effect` when a receipt says `executing` and nobody here runs it.
   */
  private async earlierOutcome(call: ToolCall, argsDigest: string): Promise<ToolOutcome | undefined> {
    const { namespace, journal } = this.deps;
    const receipt = await journal.find(namespace, call.callId);
    // A claim made here whose `executing` row is still being written counts as the receipt.
    const running = journal.runningCall(namespace, call.callId);
    const known = receipt ?? running?.start;
    if (!known) return undefined;
    if (known.toolName !== call.name || known.argsDigest !== argsDigest) {
      throw new BerthError(
        'call_id_reused',
        `Call id ${call.callId} was already used for ${known.toolName} with other arguments`,
        { callId: call.callId, tool: known.toolName },
      );
    }
    if (receipt?.status === 'completed' && receipt.outcome) return replayed(receipt.outcome);
    if (running) {
      const outcome = await running.outcome;
      // That claim lost to another holder: its receipt answers.
      return outcome ? replayed(outcome) : this.earlierOutcome(call, argsDigest);
    }
    throw new BerthError(
      'uncertain_effect',
      `Call ${call.callId} (${known.toolName}) started before and never recorded a result; it is not run again. Inspect its effects before retrying with a new call id.`,
      { callId: call.callId, tool: known.toolName, startedAt: known.startedAt },
    );
  }

  /** Refuses a cancelled call, and a tool whose runtime state no longer lets it run. */
  private assertReady(tool: Tool, signal: AbortSignal): void {
    if (signal.aborted) throw new BerthError('tool_cancelled', `The call to ${tool.name} was cancelled before it ran`);
    const availability = availabilityOf(tool);
    if (!availability.available) {
      throw new BerthError('tool_unavailable', availability.reason ?? `${tool.name} is not available now`, {
        tool: tool.name,
        runtime: wireRuntime(availability),
      });
    }
  }

  private async run(tool: Tool, args: Record<string, unknown>, callId: string, signal: AbortSignal): Promise<ToolOutcome> {
    const { namespace, sessionId, workspace } = this.deps;
    const ask = this.deps.ask ?? nobodyToAsk;
    const ctx: ToolContext = {
      callId,
      sessionId,
      workspace,
      signal,
      ask: (question) => ask(question, { namespace, sessionId, workspace, signal }),
    };
    try {
      return { ok: true, result: await tool.run(args, ctx) };
    } catch (err) {
      return failure(err);
    }
  }
}

function replayed(outcome: ToolOutcome): ToolOutcome {
  return outcome.ok ? { ...outcome, replayed: true } : outcome;
}

/** A thrown BerthError keeps its code; anything else a tool throws is `tool_failed`. */
function failure(err: unknown): ToolOutcome {
  const be =
    err instanceof BerthError ? err : new BerthError('tool_failed', err instanceof Error ? err.message : String(err));
  return { ok: false, error: be.toFrameError() };
}
