import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import css from 'highlight.js/lib/languages/css';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';

// A handful of common languages keeps the chunk small; anything else shows as plain text.
for (const [name, lang] of Object.entries({ bash, css, javascript, json, markdown, python, typescript, xml })) hljs.registerLanguage(name, lang);

/** Highlighted HTML for a piece of code in a registered language; null for any other. */
export function highlightAs(code: string, lang: string): string | null {
  try {
    if (hljs.getLanguage(lang)) return hljs.highlight(code, { language: lang, ignoreIllegals: true }).value;
  } catch {
    /* plain text then */
  }
  return null;
}
