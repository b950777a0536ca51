import { precheckToken } from './api';
import { parseRoute } from './route';
import { preload } from './session-link';
import './styles.css';

// The page starts small: the token check and a session's load start at once, side by side, and
// the app itself (Markdown, highlighting and the panels: most of the script) arrives and compiles meanwhile.
precheckToken();
const route = parseRoute(location.hash);
if (route.kind === 'session') {
  preload(route.id);
  // Markdown is a chunk of its own, asked for first: it arrives before the app and compiles its
  // patterns (web/src/markdown.ts warmMarkdown) while the load and the app are still on their way.
  void import('./markdown').then((m) => m.warmMarkdown());
}
void import('./mount');
