import type { AgentDriver, SessionUpdate, TurnIO } from '../agents/driver.js';
import type { Clock } from '../clock.js';
import { asBerthError } from '../protocol/errors/index.js';
import type { PublishInput } from '../events/types.js';
import type { Logger } from '../log.js';
import type { PromptTerminalInput } from './prompt-lane.js';
import type { PromptEntry } from './prompt-queue.js';
import type { PromptRepository } from './records.js';
import { parseCommand, runCommand, type CommandTarget } from './slash-commands.js';
import { meteredUpdate, type UsageMeter } from './usage.js';
import { decideAgentPermission } from './agent-permission.js';
import { callTool, type CallOrigin, type ToolCallPorts } from './tool-call.js';
import { midTurnContent, type MidTurnQueue } from './mid-turn.js';

/** What a turn needs from its session: named here, so a turn never reaches into the session itself. */
export interface TurnPorts extends ToolCallPorts {
  readonly sessionId: string;
  readonly clock: Clock;
  readonly log: Logger;
  readonly driver: Pick<AgentDriver, 'runTurn' | 'compact'>;
  readonly prompts: Pick<PromptRepository, 'started'>;
  /** The session's token and cost totals, fed by the driver's usage updates. */
  readonly usage: UsageMeter;
  /** What slash commands act on (docs/client-api.md §8.11); absent when the agent has its own (an external one). */
  readonly commands?: CommandTarget;
  publish(input: PublishInput): void;
  /** Publishes the prompt's one terminal event (never twice). */
  settle(entry: PromptEntry, terminal: PromptTerminalInput, extra?: Record<string, unknown>): void;
  /** Messages typed while a turn runs, handed to the turn between its model requests. */
  readonly midTurn: Pick<MidTurnQueue, 'drain'>;
  /** The prompt starts running: a previous turn's error no longer describes the session. */
  started(): void;
}

/**
 * Runs one admitted prompt to its single terminal event (docs/client-api.md §6.1 steps 6-7):
 * the start events, the user echo, the driver's turn with its tool calls, then
 * `turn_complete` or `turn_error`.
 */
export async function runPrompt(session: TurnPorts, entry: PromptEntry): Promise<void> {
  if (entry.settled) return;
  const { clock } = session;
  entry.state = 'running';
  entry.startedAt = clock.now();
  entry.abort = new AbortController();
  session.started();
  if (!entry.startStored) await session.prompts.started(entry.promptId, entry.startedAt);
  const stamp = { promptId: entry.promptId, originatorClientId: entry.originatorClientId };

  if (entry.waited) {
    session.publish({
      type: 'pending_prompt_started',
      ...stamp,
      data: { sessionId: session.sessionId, promptId: entry.promptId, text: entry.text },
    });
  }
  for (const block of entry.content) {
    session.publish({
      type: 'session_update',
      ...stamp,
      data: {
        sessionId: session.sessionId,
        update: { sessionUpdate: 'user_message_chunk', content: block, _meta: { source: 'prompt-echo' } },
      },
    });
  }

  const emit = (update: SessionUpdate) => {
    if (entry.settled) return; // a deadline already ended this prompt; later output is not published
    const metered = meteredUpdate(session.usage, update);
    session.publish({ type: 'session_update', ...stamp, data: { sessionId: session.sessionId, update: metered } });
  };
  const io: TurnIO = {
    sessionId: session.sessionId,
    promptId: entry.promptId,
    prompt: entry.content,
    signal: entry.abort.signal,
    tools: session.tools.definitions(session.guard()),
    emit,
    callTool: (call, options) => callTool(session, originOf(entry), call, options?.announce === false ? () => {} : emit, options),
    askPermission: (request) => decideAgentPermission(session, entry, request),
    // A turn a deadline already ended takes none: they wait for the next turn, or run as prompts.
    takeMidTurnMessages: () => (entry.settled ? [] : session.midTurn.drain(entry.promptId).map(midTurnContent)),
  };

  const command = session.commands ? parseCommand(entry.text) : null;
  if (command) {
    // A slash command is answered by the session itself: no model request.
    const compact = command.name === 'compact' ? session.driver.compact?.bind(session.driver) : undefined;
    const answer = compact ? await compact(io).catch((err: unknown) => `/compact failed: ${asBerthError(err).message}`) : await runCommand(session.commands!, command, entry.originatorClientId);
    emit({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: answer }, _meta: { source: 'slash-command' } });
    session.settle(entry, { stopReason: 'end_turn' }, { usage: session.usage.endTurn() });
    return;
  }

  try {
    const result = await session.driver.runTurn(io);
    const cancelled = entry.abort.signal.aborted && entry.cancelRequestedAt !== undefined;
    const stopReason = cancelled ? 'cancelled' : result.stopReason;
    const usage = session.usage.endTurn();
    session.settle(entry, { stopReason }, { ...(cancelled ? cancelledInfo(entry, clock.now()) : {}), usage });
  } catch (err) {
    const usage = session.usage.endTurn();
    if (entry.cancelRequestedAt !== undefined) {
      session.settle(entry, { stopReason: 'cancelled' }, { ...cancelledInfo(entry, clock.now()), usage });
      return;
    }
    const e = asBerthError(err);
    if (e.status >= 500 && e.code === 'internal_error') {
      session.log.error({ err, sessionId: session.sessionId, promptId: entry.promptId }, 'turn failed');
    }
    session.settle(entry, { error: { message: e.message, code: e.code, ...(e.errorKind ? { errorKind: e.errorKind } : {}) } });
  }
}

/** A turn's calls belong to its prompt and stop with it. */
function originOf(entry: PromptEntry): CallOrigin {
  return { promptId: entry.promptId, originatorClientId: entry.originatorClientId, signal: entry.abort!.signal };
}

function cancelledInfo(entry: PromptEntry, now: number): Record<string, unknown> {
  const at = entry.cancelRequestedAt ?? now;
  return { promptCancelled: { cancelledAt: at, elapsedMs: Math.max(0, at - (entry.startedAt ?? at)) } };
}
