/**
 * Prints session events the way a person reads them: streamed text stays on
 * one line per speaker, tool calls and permission requests get their own
 * lines, every other event is named. Colour only on a terminal without NO_COLOR.
 */

const colour = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code) => (s) => (colour ? `\x1b[${code}m${s}\x1b[0m` : s);
export const dim = paint('2');
export const bold = paint('1');
const cyan = paint('36');
const green = paint('32');
const yellow = paint('33');
const red = paint('31');
const magenta = paint('35');

const write = (s) => process.stdout.write(s);

/** A short one-line view of a value, for tool inputs and outputs. */
function brief(value, max = 120) {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const line = (text ?? '').replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export class EventPrinter {
  constructor() {
    /** Which stream (thought / text) the current line belongs to, or null. */
    this.streaming = null;
  }

  /** Ends a streamed line before anything else is printed. */
  line(text) {
    if (this.streaming) write('\n');
    this.streaming = null;
    write(`${text}\n`);
  }

  stream(kind, label, text) {
    if (this.streaming !== kind) {
      if (this.streaming) write('\n');
      write(label);
      this.streaming = kind;
    }
    write(kind === 'thought' ? dim(text) : text);
  }

  show(event) {
    const d = event.data ?? {};
    switch (event.type) {
      case 'session_update':
        return this.update(d.update ?? {});
      case 'permission_request':
        return this.permission(d);
      case 'permission_resolved': {
        const outcome = d.outcome?.outcome === 'selected' ? d.outcome.optionId : 'cancelled';
        return this.line(`${yellow('permission ›')} answered: ${outcome}`);
      }
      case 'turn_complete':
        return this.line(`${green('turn complete ›')} stopReason ${d.stopReason}`);
      case 'turn_error':
        return this.line(`${red('turn error ›')} ${d.message}`);
      case 'replay_complete':
        return; // the stream caught up with what happened before it opened
      default:
        return this.line(dim(`event › ${event.type}`));
    }
  }

  update(u) {
    switch (u.sessionUpdate) {
      case 'user_message_chunk':
        return this.line(`${bold('you ›')} ${u.content?.text ?? ''}`);
      case 'agent_thought_chunk':
        return this.stream('thought', dim('thinking › '), u.content?.text ?? '');
      case 'agent_message_chunk': {
        const usage = u._meta?.usage;
        if (usage) return this.line(dim(`  (model call: ${usage.inputTokens} tokens in, ${usage.outputTokens} out)`));
        return this.stream('text', `${cyan('agent ›')} `, u.content?.text ?? '');
      }
      case 'tool_call':
        return this.line(`${magenta('tool ›')} ${u.title} ${dim(`[${u._meta?.toolName ?? u.kind}] ${brief(u.rawInput)}`)}`);
      case 'tool_call_update': {
        if (u.status === 'in_progress') return this.line(`${magenta('tool ›')} running…`);
        const text = (u.content ?? []).map((c) => c.content?.text ?? '').join(' ');
        const paintStatus = u.status === 'completed' ? green : red;
        const command = commandOutput(text);
        if (command) {
          // A finished command's output (workspace_exec or workspace_poll), shown as it printed it.
          this.line(`${magenta('tool ›')} ${paintStatus(u.status)} ${dim(`exit code ${command.exitCode}, it printed:`)}`);
          for (const l of command.output.replace(/\n$/, '').split('\n')) write(`    ${dim('│')} ${l}\n`);
          return;
        }
        return this.line(`${magenta('tool ›')} ${paintStatus(u.status)} ${dim(brief(text))}`);
      }
      case 'plan':
        return this.line(`${cyan('plan ›')} ${(u.entries ?? []).map((e) => e.content).join(' · ')}`);
      default:
        return this.line(dim(`update › ${u.sessionUpdate}`));
    }
  }

  permission(d) {
    const call = d.toolCall ?? {};
    this.line(`${yellow('permission ›')} ${bold(call.title ?? 'a tool call')} needs your approval (${call._meta?.toolName ?? call.kind})`);
    for (const c of call.content ?? []) {
      if (c.type === 'diff') {
        for (const l of String(c.newText ?? '').replace(/\n$/, '').split('\n')) write(`    ${green(`+ ${l}`)}\n`);
      }
    }
    if (call.rawInput?.command) write(`    ${dim('$')} ${call.rawInput.command}\n`);
    write(`    ${dim('options:')} ${(d.options ?? []).map((o) => `${o.name} (${o.kind})`).join(' · ')}\n`);
  }
}

/** The output of a finished command, when a tool result is a finished `workspace_exec` or `workspace_poll` answer. */
function commandOutput(text) {
  try {
    const value = JSON.parse(text);
    return value && value.running === false && typeof value.output === 'string' ? value : null;
  } catch {
    return null;
  }
}
