import { blocksText, decisionText, type ExportEntry } from './document.js';
import type { ExportWriter } from './writer.js';

/**
 * `format=md` (docs/client-api.md §10.2): a "Chat Session Export" document like qwen's —
 * session facts, then the conversation. Prompts and answers are Markdown
 * already and stay as written (as qwen exports them), so the document reads
 * well when rendered; tool arguments and output go into fenced blocks whose
 * fence is longer than any backtick run inside, so they cannot close their
 * block; one-line facts are escaped.
 */
/**
 * The document as lines in parts. Every entry is followed by a blank line and
 * the document ends in exactly one newline (the streaming writer holds back
 * trailing blank space until more text follows).
 */
export const markdownWriter: ExportWriter = {
  head(m) {
    const out: string[] = ['# Chat Session Export', ''];
    if (m.title) out.push(`**${inline(m.title)}**`, '');
    out.push(
      `- **Session ID**: \`${m.sessionId}\``,
      `- **Start Time**: ${m.startTime}`,
      `- **Last Updated**: ${m.lastUpdated}`,
      `- **Exported**: ${m.exportTime}`,
      ...(m.cwd ? [`- **Working Directory**: ${code(m.cwd)}`] : []),
      `- **Model**: ${m.model ? inline(m.model) : 'unknown'}`,
      `- **Approval Mode**: ${m.approvalMode}`,
      `- **Prompt Count**: ${m.promptCount}`,
      `- **Total Tokens**: ${m.totalTokens}`,
      ...(m.unreadableRecords > 0 ? [`- **Unreadable Records**: ${m.unreadableRecords}`] : []),
      '',
      '---',
      '',
    );
    return out.join('\n');
  },
  entry: (e) => `\n${[...entry(e), ''].join('\n')}`,
  foot: () => '',
  trimEnd: true,
};

function entry(e: ExportEntry): string[] {
  switch (e.kind) {
    case 'user':
      return ['## User', '', blocksText(e.blocks)];
    case 'assistant':
      return ['## Assistant', '', e.text];
    case 'thought':
      return ['<details>', '<summary>Thinking</summary>', '', e.text, '', '</details>'];
    case 'tool':
      return [
        `### Tool: ${inline(e.name)}`,
        `**Title**: ${inline(e.title)}  `,
        `**Status**: ${e.status}`,
        '',
        '**Input:**',
        fenced(JSON.stringify(e.args, null, 2), 'json'),
        ...(e.output !== '' ? ['', '**Output:**', fenced(e.output)] : []),
      ];
    case 'permission':
      return [
        `### Permission: ${inline(e.title)}`,
        ...(e.question ? ['', fenced(e.question)] : []),
        '',
        `**Decision**: ${inline(decisionText(e.decision))}`,
      ];
    case 'plan':
      return ['### Plan', '', ...e.entries.map((p) => `- [${p.status === 'completed' ? 'x' : ' '}] ${inline(p.content)} (${p.status})`)];
    case 'event':
      return [`> **${inline(e.title)}**: ${inline(e.detail)}`];
    case 'turn_end':
      if (e.unstartedPrompt !== null) {
        return [`> **Not run** (${e.error?.code ?? 'interrupted'}): ${inline(e.error?.message ?? '')}`, '', fenced(e.unstartedPrompt)];
      }
      if (e.error) return [`> **${e.interrupted ? 'Interrupted' : 'Error'}**${e.error.code ? ` (${e.error.code})` : ''}: ${inline(e.error.message)}`];
      return e.stopReason && e.stopReason !== 'end_turn' ? [`> Turn ended: ${e.stopReason}`] : [];
    case 'unreadable':
      return [`> A transcript record (${e.recordId}) could not be read.`];
  }
}

/** A fenced block that its content cannot close. */
function fenced(text: string, lang = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((r) => r[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${lang}\n${text}\n${fence}`;
}

/** Inline text with Markdown and HTML meaning taken away (one line). */
function inline(text: string): string {
  return text.replace(/[\r\n]+/g, ' ').replace(/([\\`*_[\]|<>])/g, '\\$1');
}

function code(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((r) => r[0].length));
  const tick = '`'.repeat(longest + 1);
  return `${tick} ${text.replace(/[\r\n]+/g, ' ')} ${tick}`;
}
