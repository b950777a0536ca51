import { createHash } from 'node:crypto';
import { decisionText, type Block, type ExportEntry, type ExportMeta } from './document.js';
import type { ExportWriter } from './writer.js';
import { EXPORT_CSS } from './html-style.js';

/**
 * `format=html` (docs/client-api.md §10.2): one self-contained page a person can open and
 * read. Everything from the transcript is untrusted text and is escaped; the
 * page carries no script at all, and its Content-Security-Policy allows only
 * its own stylesheet (by hash) and inline `data:` images, so even a mistake in
 * escaping could not load or run anything. Thoughts are collapsed; tool calls
 * show their arguments and results; permission decisions and errors are notes
 * between the messages.
 */
const STYLE_HASH = createHash('sha256').update(EXPORT_CSS).digest('base64');
export const EXPORT_CSP = `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; img-src data:; base-uri 'none'; form-action 'none'`;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

const time = (ms: number) => {
  const iso = new Date(ms).toISOString();
  return `<time datetime="${iso}">${escapeHtml(iso.replace('T', ' ').slice(0, 19))} UTC</time>`;
};
const text = (t: string) => `<div class="text">${escapeHtml(t)}</div>`;
const pre = (t: string) => `<pre>${escapeHtml(t)}</pre>`;

const IMAGE_TYPES = /^image\/(png|jpeg|gif|webp)$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

function block(b: Block): string {
  if (b.type === 'text' && typeof b.text === 'string') return text(b.text);
  if (b.type === 'image' && typeof b.mimeType === 'string' && IMAGE_TYPES.test(b.mimeType) && typeof b.data === 'string' && BASE64.test(b.data)) {
    return `<img alt="image from the prompt" src="data:${b.mimeType};base64,${b.data}">`;
  }
  const name = typeof b.uri === 'string' ? b.uri : typeof b.name === 'string' ? b.name : '';
  return `<div class="text">[${escapeHtml(b.type)}${name ? ` ${escapeHtml(name)}` : ''}]</div>`;
}

function entry(e: ExportEntry): string {
  switch (e.kind) {
    case 'user':
      return `<section class="msg user"><div class="role"><span>You</span>${time(e.at)}</div>${e.blocks.map(block).join('')}</section>`;
    case 'assistant':
      return `<section class="msg assistant"><div class="role"><span>Assistant</span>${time(e.at)}</div>${text(e.text)}</section>`;
    case 'thought':
      return `<details class="thought"><summary>Thinking</summary>${text(e.text)}</details>`;
    case 'tool': {
      const status = e.status.replace(/[^a-z]+/g, '-');
      return (
        `<details class="tool status-${status}" open><summary><span class="badge">${escapeHtml(e.status)}</span>` +
        `<span class="tool-name">${escapeHtml(e.name)}</span> <span class="tool-title">${escapeHtml(e.title)}</span></summary>` +
        `<h4>Arguments</h4>${pre(JSON.stringify(e.args, null, 2))}` +
        (e.output !== '' ? `<h4>Result</h4>${pre(e.output)}` : '') +
        `</details>`
      );
    }
    case 'permission': {
      const kind = e.decision?.optionKind ?? '';
      const tone = kind.startsWith('allow') ? ' allow' : kind.startsWith('reject') || e.decision?.outcome === 'cancelled' ? ' reject' : '';
      const what = e.question ? `Question: ${e.question}` : e.title;
      return `<div class="note permission${tone}"><strong>Permission</strong> ${escapeHtml(what)} — ${escapeHtml(decisionText(e.decision))}</div>`;
    }
    case 'plan':
      return (
        `<div class="note plan"><strong>Plan</strong><ul>` +
        e.entries.map((p) => `<li${p.status === 'completed' ? ' class="done"' : ''}>${escapeHtml(p.content)} (${escapeHtml(p.status)})</li>`).join('') +
        `</ul></div>`
      );
    case 'event':
      return `<div class="note"><strong>${escapeHtml(e.title)}</strong> ${escapeHtml(e.detail)}</div>`;
    case 'turn_end':
      if (e.unstartedPrompt !== null) {
        return `<div class="note turn-error"><strong>Not run</strong> ${escapeHtml(e.error?.message ?? '')}${pre(e.unstartedPrompt)}</div>`;
      }
      if (e.error) {
        const label = e.interrupted ? 'Interrupted' : 'Error';
        return `<div class="note turn-error"><strong>${label}</strong> ${escapeHtml(e.error.message)}${e.error.code ? ` (${escapeHtml(e.error.code)})` : ''}</div>`;
      }
      return e.stopReason && e.stopReason !== 'end_turn' ? `<div class="note"><strong>Turn ended</strong> ${escapeHtml(e.stopReason)}</div>` : '';
    case 'unreadable':
      return `<div class="note turn-error"><strong>Unreadable record</strong> ${escapeHtml(e.recordId)}</div>`;
  }
}

function facts(m: ExportMeta): string {
  const rows: [string, string][] = [
    ['Session', m.sessionId],
    ['Started', m.startTime],
    ['Last updated', m.lastUpdated],
    ...(m.cwd ? ([['Workspace', m.cwd]] as [string, string][]) : []),
    ['Model', m.model ?? 'unknown'],
    ['Approval mode', m.approvalMode],
    ['Prompts', String(m.promptCount)],
    ['Tokens', String(m.totalTokens)],
    ...(m.unreadableRecords > 0 ? ([['Unreadable records', String(m.unreadableRecords)]] as [string, string][]) : []),
  ];
  return `<dl class="facts">${rows.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join('')}</dl>`;
}

/** The page in three parts, so the export can stream it: everything before the first entry, each entry, the end. */
export const htmlWriter: ExportWriter = {
  head(meta) {
    const title = meta.title ?? `Session ${meta.sessionId.slice(0, 8)}`;
    return [
      '<!doctype html>',
      '<html lang="en">',
      '<head>',
      '<meta charset="utf-8">',
      `<meta http-equiv="Content-Security-Policy" content="${EXPORT_CSP}">`,
      '<meta name="referrer" content="no-referrer">',
      '<meta name="viewport" content="width=device-width, initial-scale=1">',
      '<meta name="color-scheme" content="light dark">',
      `<title>${escapeHtml(title)} — Berth session export</title>`,
      `<style>${EXPORT_CSS}</style>`,
      '</head>',
      '<body>',
      `<header><h1>${escapeHtml(title)}</h1>${facts(meta)}</header>`,
      '<main class="conversation">',
    ].join('\n');
  },
  entry: (e, index) => (index === 0 ? '' : '\n') + entry(e),
  foot: (meta) =>
    ['</main>', `<footer>Exported by Berth on ${escapeHtml(meta.exportTime)} · ${meta.recordCount} transcript records</footer>`, '</body>', '</html>', ''].join('\n'),
};
