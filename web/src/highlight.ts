import { lazyModule } from './lazy-module';

/**
 * Syntax highlighting, loaded apart from the app (web/src/hljs.ts, a third of its script): opening
 * a session does not wait for it. Until it has arrived code shows as plain text, and what showed
 * code (a Markdown answer) renders again once it is here; the page fetches it when it is idle
 * after the first view has shown (web/src/mount.tsx, SessionView).
 */
const highlighter = lazyModule(() => import('./hljs'));

export const loadHighlighter = highlighter.load;

/** Fetches the highlighter when the page is next idle (a later call finds it asked for already). */
export function loadHighlighterWhenIdle(): void {
  const idle = window.requestIdleCallback ?? ((run: () => void) => setTimeout(run, 1000));
  idle(() => void highlighter.load());
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Highlighted HTML for a piece of code; the language is guessed only among those registered. Plain until the highlighter is here. */
export function highlight(code: string, lang?: string): string {
  if (!lang) return escape(code);
  const ready = highlighter.ready();
  if (!ready) {
    void highlighter.load();
    return escape(code);
  }
  return ready.highlightAs(code, lang) ?? escape(code);
}

/** Whether the highlighter is here; a component that shows code renders again when it arrives. */
export const useHighlighter = (): boolean => highlighter.use() !== null;

const LANG_BY_EXT: Record<string, string> = {
  ts: 'typescript', tsx: 'typescript', js: 'javascript', mjs: 'javascript', cjs: 'javascript', jsx: 'javascript',
  json: 'json', md: 'markdown', py: 'python', sh: 'bash', bash: 'bash', css: 'css', html: 'xml', xml: 'xml', svg: 'xml',
};
export const langOfPath = (path: string): string | undefined => LANG_BY_EXT[path.split('.').pop()?.toLowerCase() ?? ''];
