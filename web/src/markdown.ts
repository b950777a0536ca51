import DOMPurify from 'dompurify';
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import css from 'highlight.js/lib/languages/css';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import { Marked } from 'marked';

// A handful of common languages keeps the bundle small; anything else shows as plain text.
for (const [name, lang] of Object.entries({ bash, css, javascript, json, markdown, python, typescript, xml })) hljs.registerLanguage(name, lang);

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Highlighted HTML for a piece of code; the language is guessed only among those registered. */
export function highlight(code: string, lang?: string): string {
  try {
    if (lang && hljs.getLanguage(lang)) return hljs.highlight(code, { language: lang, ignoreIllegals: true }).value;
  } catch {
    /* fall through to plain text */
  }
  return escape(code);
}

const LANG_BY_EXT: Record<string, string> = {
  ts: 'typescript', tsx: 'typescript', js: 'javascript', mjs: 'javascript', cjs: 'javascript', jsx: 'javascript',
  json: 'json', md: 'markdown', py: 'python', sh: 'bash', bash: 'bash', css: 'css', html: 'xml', xml: 'xml', svg: 'xml',
};
export const langOfPath = (path: string): string | undefined => LANG_BY_EXT[path.split('.').pop()?.toLowerCase() ?? ''];

const marked = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    code({ text, lang }) {
      return `<pre><code class="hljs">${highlight(text, lang)}</code></pre>`;
    },
  },
});

/**
 * Markdown from an agent as safe HTML: rendered by marked, then sanitised by DOMPurify (no script,
 * no event handlers, no forms, no style); links open in a new tab without an opener.
 */
export function renderMarkdown(source: string): string {
  const html = marked.parse(source, { async: false }) as string;
  return DOMPurify.sanitize(html);
}

// Set once: options passed to each sanitize call are parsed again every time (DOMPurify rebuilds
// its allow-lists from them), which was most of the cost of sanitising a short answer.
DOMPurify.setConfig({ FORBID_TAGS: ['style', 'form', 'input', 'iframe'], FORBID_ATTR: ['style'] });

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});
