import { precheckToken } from './api';
import { parseRoute } from './route';
import { preload } from './session-link';
import './styles.css';

// The page starts small: the token check and a session's load start at once, side by side, and
// the app itself (Markdown, highlighting and the panels: most of the script) arrives and compiles meanwhile.
precheckToken();
const route = parseRoute(location.hash);
if (route.kind === 'session') preload(route.id);
void import('./mount');
