import type { PublishInput } from '../events/types.js';
import { BerthError } from '../protocol/errors/index.js';
import { parseApprovalMode, type ApprovalMode } from './approval.js';
import type { RewindResult, RewindTarget } from './rewind.js';
import type { UsageSnapshot, UsageTotals } from './usage.js';

/** One entry of ACP's `available_commands_update` (docs/client-api.md §8.11), in qwen's shape. */
export interface AvailableCommand {
  readonly name: string;
  readonly description: string;
  readonly input: { readonly hint: string } | null;
  readonly _meta: Record<string, unknown>;
}

/** What a command may do to its session; the session lends it (sessions/spawn.ts). */
export interface CommandTarget {
  readonly id: string;
  readonly approvalMode: ApprovalMode;
  setApprovalMode(mode: ApprovalMode, clientId: string | undefined): unknown;
  switchModel(modelId: string, clientId: string | undefined): Promise<string>;
  models(): { readonly currentModelId: string | null; readonly availableModels: readonly { readonly modelId: string }[] };
  readonly usage: { snapshot(): UsageSnapshot };
  rewind(target: RewindTarget, clientId: string | undefined, viaCommand: boolean): Promise<RewindResult>;
}

interface Command {
  readonly description: string;
  readonly hint: string | null;
  run(target: CommandTarget, args: string, clientId: string | undefined): Promise<string>;
}

const totalsText = (t: UsageTotals): string =>
  `${t.requests} model request(s): ${t.inputTokens} input tokens (${t.cachedReadTokens} cached), ${t.outputTokens} output tokens (${t.thoughtTokens} reasoning)` +
  (t.cost ? `, cost ${t.cost.amount.toFixed(4)} ${t.cost.currency}` : '');

/** The commands the session itself answers for the built-in agent, without asking the model. */
const COMMANDS: Readonly<Record<string, Command>> = {
  compact: {
    description: 'Summarise the older conversation now, keeping the last turns verbatim',
    hint: null,
    // The turn runs it with the driver (sessions/turn.ts): it needs the model and the turn's stream.
    async run() {
      return 'This agent cannot compact its context.';
    },
  },
  usage: {
    description: 'Show the tokens (and cost) this session used',
    hint: null,
    async run(target) {
      const { session, lastTurn } = target.usage.snapshot();
      return `Session: ${totalsText(session)}.${lastTurn ? `\nLast turn: ${totalsText(lastTurn)}.` : ''}`;
    },
  },
  mode: {
    description: 'Show or change the approval mode (plan, default, auto-edit, auto, yolo)',
    hint: 'approval mode',
    async run(target, args, clientId) {
      if (args === '') return `The approval mode is ${target.approvalMode}.`;
      const previous = target.approvalMode;
      await target.setApprovalMode(parseApprovalMode(args), clientId);
      return `Approval mode changed from ${previous} to ${args}.`;
    },
  },
  model: {
    description: 'Show or switch the model',
    hint: 'model id',
    async run(target, args, clientId) {
      const { currentModelId, availableModels } = target.models();
      if (args === '') return `The model is ${currentModelId ?? 'none'}. Available: ${availableModels.map((m) => m.modelId).join(', ')}.`;
      return `Switched to ${await target.switchModel(args, clientId)}.`;
    },
  },
  rewind: {
    description: 'Undo the last turn, or every turn after one (a branch point checkpointUuid, or a promptId to undo from): files and conversation',
    hint: 'checkpointUuid or promptId',
    async run(target, args, clientId) {
      const result = await rewindTo(target, args, clientId);
      if (!result.rewound) return 'Nothing to rewind: no turn comes after that one.';
      const files = result.filesChanged.length > 0 ? ` Restored ${result.filesChanged.join(', ')}.` : ' No file needed restoring.';
      const failed = result.filesFailed.length > 0 ? ` Could not restore ${result.filesFailed.join(', ')}.` : '';
      return `Rewound to turn ${result.targetTurnIndex}.${files}${failed}`;
    },
  },
  export: {
    description: 'Say where to export this session (html, md, json, jsonl)',
    hint: 'format',
    async run(target, args) {
      const format = args === '' ? 'html' : args;
      if (!['html', 'md', 'json', 'jsonl'].includes(format)) throw new BerthError('invalid_export_format');
      return `Export this session with GET /session/${target.id}/export?format=${format}.`;
    },
  },
};

/** `/rewind [id]`: the last turn, else the id as a branch point, else as a prompt id. */
async function rewindTo(target: CommandTarget, id: string, clientId: string | undefined): Promise<RewindResult> {
  if (id === '') return target.rewind({}, clientId, true);
  try {
    return await target.rewind({ checkpointUuid: id }, clientId, true);
  } catch (err) {
    if (!(err instanceof BerthError) || err.code !== 'rewind_target_not_found') throw err;
    return target.rewind({ promptId: id }, clientId, true);
  }
}

/** The list sent as `available_commands_update` when a built-in agent's session starts. */
export function availableCommands(): AvailableCommand[] {
  return Object.entries(COMMANDS).map(([name, c]) => ({
    name,
    description: c.description,
    input: c.hint === null ? null : { hint: c.hint },
    _meta: { source: 'builtin-command', sourceLabel: 'Built-in', supportedModes: ['acp'], subcommands: [], modelInvocable: false },
  }));
}

/** The `available_commands_update` a built-in agent's session publishes when it starts. */
export function availableCommandsEvent(sessionId: string): PublishInput {
  const update = { sessionUpdate: 'available_commands_update', availableCommands: availableCommands(), _meta: { availableSkills: [] } };
  return { type: 'session_update', data: { sessionId, update } };
}

/** `/name args` when `text` starts with a known command, else null (the prompt goes to the model). */
export function parseCommand(text: string): { name: string; args: string } | null {
  const match = /^\/([a-z][a-z-]*)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match || !(match[1]! in COMMANDS)) return null;
  return { name: match[1]!, args: (match[2] ?? '').trim() };
}

/** Runs a parsed command; a refusal (an unknown mode or model) comes back as its message, not a failed turn. */
export async function runCommand(target: CommandTarget, command: { name: string; args: string }, clientId: string | undefined): Promise<string> {
  try {
    return await COMMANDS[command.name]!.run(target, command.args, clientId);
  } catch (err) {
    return `/${command.name} failed: ${err instanceof Error ? err.message : String(err)}`;
  }
}
