import { diffLines } from 'diff';
import type { Item } from './session-model';

type Tool = Extract<Item, { kind: 'tool' }>;

/** One edit as a line diff: removed lines, added lines and a little context. */
export function Diff({ path, oldText, newText }: { path: string; oldText: string | null; newText: string }) {
  const parts = diffLines(oldText ?? '', newText);
  return (
    <div class="diff" aria-label={`diff of ${path}`}>
      <div class="diff-path">{path}</div>
      <pre>
        {parts.map((p, i) => (
          <span key={i} class={p.added ? 'add' : p.removed ? 'del' : 'ctx'}>
            {p.value
              .replace(/\n$/, '')
              .split('\n')
              .map((line) => `${p.added ? '+' : p.removed ? '-' : ' '} ${line}\n`)
              .join('')}
          </span>
        ))}
      </pre>
    </div>
  );
}

const outputText = (tool: Tool): string => {
  const texts = tool.content.filter((c) => c.type === 'content' && typeof c.content?.text === 'string').map((c) => c.content.text as string);
  if (texts.length > 0) return texts.join('\n');
  return tool.output === undefined ? '' : JSON.stringify(tool.output, null, 2);
};

/** A tool call: title, status and duration, its arguments, a diff per edit, and its output. */
export function ToolCard({ tool }: { tool: Tool }) {
  const diffs = tool.content.filter((c) => c.type === 'diff');
  const out = outputText(tool);
  const duration = tool.startedAt !== null && tool.endedAt !== null ? `${Math.max(0, tool.endedAt - tool.startedAt)} ms` : '';
  return (
    <details class={`tool status-${tool.status}`} open={tool.status === 'failed' || diffs.length > 0}>
      <summary>
        <span class="tool-title">{tool.title}</span>
        <span class="badge">{tool.status}</span>
        {duration && <span class="muted">{duration}</span>}
      </summary>
      {tool.toolName && <div class="muted">{tool.toolName}</div>}
      {tool.input !== undefined && <pre class="args">{JSON.stringify(tool.input, null, 2)}</pre>}
      {diffs.map((d, i) => (
        <Diff key={i} path={d.path} oldText={d.oldText} newText={d.newText} />
      ))}
      {out && <pre class="output">{out}</pre>}
    </details>
  );
}
