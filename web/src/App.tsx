import { useEffect, useLayoutEffect, useState } from 'preact/hooks';
import { api, ApiError, firstTokenCheck } from './api';
import { FileBrowser } from './FileBrowser';
import { Login } from './Login';
import { parseRoute, type Route } from './route';
import { SessionView } from './SessionView';
import { Sidebar, type Agent, type Workspace } from './Sidebar';
import { WorkspacePanel } from './WorkspacePanel';

const THEME_KEY = 'berth.theme';
interface Caps {
  readonly workspaces: Workspace[];
  readonly modelServices: string[];
  readonly agents: Agent[];
}
const capsOf = (c: any): Caps => ({ workspaces: c.workspaces ?? [], modelServices: c.modelServices ?? [], agents: c.agents ?? [] });
function applyTheme(theme: string | null) {
  if (theme) document.documentElement.dataset.theme = theme;
  else delete document.documentElement.dataset.theme;
}

/** Alt+J / Alt+K move to the next / previous session of the list. */
function stepSession(by: number) {
  const links = [...document.querySelectorAll<HTMLAnchorElement>('a.session-link')];
  if (links.length === 0) return;
  const at = links.findIndex((a) => a.getAttribute('href') === location.hash);
  const next = links[(at + by + links.length) % links.length]!;
  location.hash = next.getAttribute('href')!;
}

export function App() {
  const [authed, setAuthed] = useState<boolean | null>(null);
  const [refused, setRefused] = useState(false);
  const [route, setRoute] = useState<Route>(parseRoute(location.hash));
  const [caps, setCaps] = useState<Caps | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [theme, setTheme] = useState<string | null>(localStorage.getItem(THEME_KEY));
  const [refreshKey, setRefreshKey] = useState(0);

  // A layout effect: it runs as the first render lands, not a frame later (the check itself started with the page).
  useLayoutEffect(() => {
    firstTokenCheck().then(
      (c) => (c ? (setCaps(capsOf(c)), setAuthed(true)) : setAuthed(false)),
      (err: Error) => setError(err.message),
    );
    const onHash = () => setRoute(parseRoute(location.hash));
    window.addEventListener('hashchange', onHash);
    const onKey = (e: KeyboardEvent) => {
      if (e.altKey && (e.key === 'j' || e.key === 'k')) {
        e.preventDefault();
        stepSession(e.key === 'j' ? 1 : -1);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => {
      window.removeEventListener('hashchange', onHash);
      window.removeEventListener('keydown', onKey);
    };
  }, []);
  useEffect(() => applyTheme(theme), [theme]);
  useEffect(() => {
    if (!authed || caps) return;
    api('GET', '/capabilities').then(
      (c) => setCaps(capsOf(c)),
      (err: Error) => (err instanceof ApiError && err.status === 401 ? (setRefused(true), setAuthed(false)) : setError(err.message)),
    );
  }, [authed]);

  const toggleTheme = () => {
    const dark = theme ? theme === 'dark' : matchMedia('(prefers-color-scheme: dark)').matches;
    const next = dark ? 'light' : 'dark';
    localStorage.setItem(THEME_KEY, next);
    setTheme(next);
  };

  if (authed === null) return <div class="loading">{error ?? 'Connecting…'}</div>;
  if (!authed) return <Login failed={refused} done={() => setAuthed(true)} />;
  return (
    <div class="app">
      <header class="top">
        <a href="#/" class="brand">
          Berth
        </a>
        <a href="#/files">Files</a>
        <a href="#/workspace">Workspace</a>
        <span class="spacer" />
        <button class="link" onClick={toggleTheme} aria-label="Toggle light or dark theme">
          Theme
        </button>
      </header>
      {error && (
        <div class="error" role="alert">
          {error}{' '}
          <button class="link" onClick={() => setError(null)}>
            dismiss
          </button>
        </div>
      )}
      <div class="main">
        {caps && (
          <Sidebar
            workspaces={caps.workspaces}
            models={caps.modelServices}
            agents={caps.agents}
            current={route.kind === 'session' ? route.id : null}
            open={(id) => {
              location.hash = `#/s/${id}`;
              setRefreshKey((k) => k + 1);
            }}
            onError={setError}
            refreshKey={refreshKey}
          />
        )}
        <main class="content">
          {route.kind === 'session' && <SessionView key={route.id} sessionId={route.id} onError={setError} />}
          {route.kind === 'files' && <FileBrowser onError={setError} />}
          {route.kind === 'workspace' && caps && <WorkspacePanel workspaces={caps.workspaces} onError={setError} />}
          {route.kind === 'home' && (
            <div class="home muted">
              <p>Pick a session or start a new one.</p>
              <p>Keys: Enter sends · Alt+A approves · Alt+R rejects · Esc cancels the turn · Alt+J/K switch session</p>
            </div>
          )}
        </main>
      </div>
    </div>
  );
}
