import { BerthError } from '../../protocol/errors/index.js';
import type { AskHook, PermissionDecision, PermissionHook, PermissionRequest } from '../../tools/permission.js';
import { policyAllows, type Policy } from '../../tools/types.js';
import type { TerminalPrompter } from './terminal.js';

/** How long a call's arguments may be when shown to the owner; the rest is elided. */
const SHOWN_ARGS_CHARS = 400;

export interface OwnerApprovalOptions {
  /** `--approve`: write/critical calls up to this policy run without asking; null asks for every one. */
  readonly approve: Exclude<Policy, 'read'> | null;
  /** The owner's terminal, or null when nobody is there (stdin is not a TTY). */
  readonly terminal: TerminalPrompter | null;
}

/**
 * A's owner approval (docs/gateway.md: "Validate … permissions before every
 * operation"): a write or critical call runs when `--approve` covers it, or
 * when the owner says yes at the terminal. Unattended and uncovered, it is
 * refused. `workspace_ask` questions go to the same terminal.
 */
export class OwnerApproval {
  constructor(private readonly options: OwnerApprovalOptions) {}

  readonly permission: PermissionHook = async (request) => this.decide(request);

  readonly ask: AskHook = async (question, request) => {
    const terminal = this.options.terminal;
    if (!terminal) {
      throw new BerthError('question_unanswered', 'The owner runs unattended (no terminal): questions cannot be answered');
    }
    const who = request.sessionId ? `session ${shortId(request.sessionId)}` : 'the host';
    return terminal.ask(`\n[berth connect] ${who} asks: ${question.question}\nanswer> `, request.signal);
  };

  private async decide(request: PermissionRequest): Promise<PermissionDecision> {
    const { policy, name } = request.tool;
    const { approve, terminal } = this.options;
    if (approve !== null && policyAllows(approve, policy)) return { allow: true };
    if (!terminal) {
      return {
        allow: false,
        reason: `${name} (${policy}) needs the owner's approval; this owner runs unattended without --approve ${policy}`,
      };
    }
    const who = request.sessionId ? `session ${shortId(request.sessionId)}` : 'the host';
    const prompt = `\n[berth connect] ${who} asks to run ${name} (${policy}) ${shownArgs(request.args)}\nallow? [y/N] `;
    let answer: string;
    try {
      answer = await terminal.ask(prompt, request.signal);
    } catch (err) {
      return { allow: false, reason: `The owner did not answer (${(err as Error).message})` };
    }
    return /^y(es)?$/i.test(answer) ? { allow: true } : { allow: false, reason: `The owner declined ${name}` };
  }
}

export const shortId = (id: string): string => id.slice(0, 8);

function shownArgs(args: Record<string, unknown>): string {
  const text = JSON.stringify(args);
  return text.length <= SHOWN_ARGS_CHARS ? text : `${text.slice(0, SHOWN_ARGS_CHARS)}… (${text.length} chars)`;
}
