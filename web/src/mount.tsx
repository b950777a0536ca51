import { render } from 'preact';
import { App } from './App';
import { loadHighlighter } from './highlight';

render(<App />, document.getElementById('app')!);

// Highlighting is a chunk of its own (web/src/highlight.ts): fetched once the page is idle.
const idle = window.requestIdleCallback ?? ((run: () => void) => setTimeout(run, 1000));
idle(() => void loadHighlighter());
