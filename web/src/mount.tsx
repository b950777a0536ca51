import { render } from 'preact';
import { App } from './App';
import { loadHighlighterWhenIdle } from './highlight';
import { parseRoute } from './route';

// The entry script is async (web/index.html), so it does not wait for the style sheet; the page
// body may then still be parsing when this chunk arrives.
const start = () => render(<App />, document.getElementById('app')!);
if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start, { once: true });
else start();

// A session view asks for the highlighter once it shows its replay (SessionView): idle time before
// that is mostly the wait for the load, and compiling highlight.js then would delay the view.
if (parseRoute(location.hash).kind !== 'session') loadHighlighterWhenIdle();
