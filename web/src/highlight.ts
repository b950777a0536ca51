import { useEffect, useState } from 'preact/hooks';

/**
 * Syntax highlighting, loaded apart from the app (web/src/hljs.ts, a third of its script): opening
 * a session does not wait for it. Until it has arrived code shows as plain text, and what showed
 * code (a Markdown answer) renders again once it is here; the page fetches it when it is idle
 * after the first view has shown (web/src/mount.tsx, SessionView).
 */
type Highlighter = typeof import('./hljs');

let ready: Highlighter | null = null;
let loading: Promise<Highlighter> | null = null;
const waiting = new Set<() => void>();

export function loadHighlighter(): Promise<Highlighter> {
  loading ??= import('./hljs').then((m) => {
    ready = m;
    for (const done of waiting) done();
    waiting.clear();
    return m;
  });
  return loading;
}

/** Fetches the highlighter when the page is next idle (once; a later call does nothing). */
export function loadHighlighterWhenIdle(): void {
  if (loading) return;
  const idle = window.requestIdleCallback ?? ((run: () => void) => setTimeout(run, 1000));
  idle(() => void loadHighlighter());
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Highlighted HTML for a piece of code; the language is guessed only among those registered. Plain until the highlighter is here. */
export function highlight(code: string, lang?: string): string {
  if (!lang) return escape(code);
  if (!ready) {
    void loadHighlighter();
    return escape(code);
  }
  return ready.highlightAs(code, lang) ?? escape(code);
}

/** Whether the highlighter is here; a component that shows code renders again when it arrives. */
export function useHighlighter(): boolean {
  const [here, setHere] = useState(ready !== null);
  useEffect(() => {
    if (here) return;
    if (ready) return setHere(true);
    const done = () => setHere(true);
    waiting.add(done);
    return () => void waiting.delete(done);
  }, [here]);
  return here;
}

const LANG_BY_EXT: Record<string, string> = {
  ts: 'typescript', tsx: 'typescript', js: 'javascript', mjs: 'javascript', cjs: 'javascript', jsx: 'javascript',
  json: 'json', md: 'markdown', py: 'python', sh: 'bash', bash: 'bash', css: 'css', html: 'xml', xml: 'xml', svg: 'xml',
};
export const langOfPath = (path: string): string | undefined => LANG_BY_EXT[path.split('.').pop()?.toLowerCase() ?? ''];
