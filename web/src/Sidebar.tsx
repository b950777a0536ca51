import { useEffect, useState } from 'preact/hooks';
import { api } from './api';

export interface Workspace {
  readonly id: string;
  readonly cwd: string;
  readonly displayName: string;
  readonly primary: boolean;
  readonly location: 'local' | 'remote';
  /** A remote workspace's gateway channel (docs/client-api.md §3.1). */
  readonly channel?: { readonly state: 'connected' | 'disconnected'; readonly channels: number };
}
/** An external agent from `/capabilities` `agents`: picked by its id, or `<agentId>/<modelId>`. */
export interface Agent {
  readonly id: string;
  readonly default: boolean;
  readonly models: readonly { readonly modelId: string; readonly name: string }[];
}
interface SessionEntry {
  readonly sessionId: string;
  readonly state: 'live' | 'persisted';
  readonly updatedAt: string;
  readonly displayName?: string;
}
interface Listing {
  readonly sessions: SessionEntry[];
  readonly nextCursor?: string;
}

const PAGE = 50;
const MODES = ['default', 'plan', 'auto-edit', 'auto', 'yolo'];
/**
 * Stored sessions the person hid from the list. The client API has no route that deletes a stored
 * session (DELETE /session/{id} closes a live one), so removing one from the list is kept in this browser.
 */
const HIDDEN_KEY = 'berth.hidden';
const hiddenIds = (): Set<string> => new Set(JSON.parse(localStorage.getItem(HIDDEN_KEY) ?? '[]') as string[]);
const listPath = (ws: Workspace, cursor?: string) =>
  `/workspace/${encodeURIComponent(ws.cwd)}/sessions?size=${PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;

/** Workspaces, their sessions newest first (searchable, a page at a time), and the new-session form. */
export function Sidebar(props: {
  workspaces: readonly Workspace[];
  models: readonly string[];
  agents: readonly Agent[];
  current: string | null;
  open: (sessionId: string) => void;
  onError: (message: string) => void;
  refreshKey: number;
}) {
  const [lists, setLists] = useState<Record<string, Listing>>({});
  const [search, setSearch] = useState('');
  const [creating, setCreating] = useState(false);
  const [hidden, setHidden] = useState<Set<string>>(hiddenIds);
  const [showHidden, setShowHidden] = useState(false);
  const hide = (s: SessionEntry, on: boolean) => {
    const next = new Set(hidden);
    if (on) next.add(s.sessionId);
    else next.delete(s.sessionId);
    localStorage.setItem(HIDDEN_KEY, JSON.stringify([...next]));
    setHidden(next);
  };

  const reload = () =>
    Promise.all(props.workspaces.map((ws) => api<Listing>('GET', listPath(ws)).then((l) => [ws.id, l] as const)))
      .then((pairs) => setLists(Object.fromEntries(pairs)))
      .catch((err: Error) => props.onError(err.message));
  const older = (ws: Workspace) => {
    const have = lists[ws.id];
    if (!have?.nextCursor) return;
    api<Listing>('GET', listPath(ws, have.nextCursor))
      .then((l) => setLists({ ...lists, [ws.id]: { sessions: [...have.sessions, ...l.sessions], ...(l.nextCursor ? { nextCursor: l.nextCursor } : {}) } }))
      .catch((err: Error) => props.onError(err.message));
  };
  useEffect(() => void reload(), [props.refreshKey, props.current, props.workspaces]);

  const needle = search.trim().toLowerCase();
  const matches = (s: SessionEntry) =>
    (showHidden || !hidden.has(s.sessionId)) && (!needle || (s.displayName ?? '').toLowerCase().includes(needle) || s.sessionId.includes(needle));

  const rename = async (s: SessionEntry) => {
    const name = prompt('Session name', s.displayName ?? '');
    if (name === null) return;
    await api('PATCH', `/session/${s.sessionId}/metadata`, { displayName: name }).catch((err: Error) => props.onError(err.message));
    void reload();
  };
  const close = async (s: SessionEntry) => {
    await api('DELETE', `/session/${s.sessionId}`).catch((err: Error) => props.onError(err.message));
    void reload();
  };

  return (
    <nav class="sidebar" aria-label="Sessions">
      <button class="primary" onClick={() => setCreating(!creating)} aria-expanded={creating}>
        New session
      </button>
      {creating && <NewSession {...props} done={(id) => (setCreating(false), props.open(id))} />}
      <input type="search" aria-label="Search sessions" placeholder="Search sessions" value={search} onInput={(e) => setSearch((e.target as HTMLInputElement).value)} />
      {props.workspaces.map((ws) => {
        const listing = lists[ws.id];
        const mine = (listing?.sessions ?? []).filter(matches);
        return (
          <section key={ws.id} class="workspace">
            <h2 title={ws.cwd}>
              {ws.displayName} <span class="badge">{ws.location}</span>
              {ws.channel && (
                <span class={`badge channel-${ws.channel.state}`} title={`${ws.channel.channels} gateway channel(s) open`}>
                  {ws.channel.state === 'connected' ? 'owner connected' : 'owner offline'}
                </span>
              )}
            </h2>
            <ul>
              {mine.map((s) => (
                <li key={s.sessionId} class={s.sessionId === props.current ? 'current' : ''}>
                  <a href={`#/s/${s.sessionId}`} class="session-link">
                    <span>{s.displayName ?? s.sessionId.slice(0, 8)}</span>
                    <span class={`badge state-${s.state}`}>{s.state}</span>
                  </a>
                  <button class="link small" aria-label="Rename" onClick={() => rename(s)}>
                    ✎
                  </button>
                  {s.state === 'live' && (
                    <button class="link small" aria-label="Close" onClick={() => close(s)}>
                      ×
                    </button>
                  )}
                  {s.state === 'persisted' && (
                    <button class="link small" aria-label={hidden.has(s.sessionId) ? 'Show in list' : 'Remove from list'} onClick={() => hide(s, !hidden.has(s.sessionId))}>
                      {hidden.has(s.sessionId) ? '↺' : '−'}
                    </button>
                  )}
                </li>
              ))}
            </ul>
            {listing?.nextCursor && (
              <button class="link" onClick={() => older(ws)}>
                Load older sessions
              </button>
            )}
          </section>
        );
      })}
      {hidden.size > 0 && (
        <button class="link small" onClick={() => setShowHidden(!showHidden)}>
          {showHidden ? 'Leave out removed sessions' : `Show removed sessions (${hidden.size})`}
        </button>
      )}
    </nav>
  );
}

function NewSession(props: {
  workspaces: readonly Workspace[];
  models: readonly string[];
  agents: readonly Agent[];
  onError: (m: string) => void;
  done: (id: string) => void;
}) {
  const [agent, setAgent] = useState('');
  const [cwd, setCwd] = useState(props.workspaces[0]?.cwd ?? '');
  const [scope, setScope] = useState('thread');
  const [mode, setMode] = useState('default');
  const [service, setService] = useState('');
  const agentIds = new Set(props.agents.map((a) => a.id));
  const chosen = props.agents.find((a) => a.id === agent);
  const create = async (e: Event) => {
    e.preventDefault();
    try {
      const body = await api('POST', '/session', {
        cwd,
        sessionScope: scope,
        approvalMode: mode,
        // An agent is picked like a model service: `<agentId>` or `<agentId>/<modelId>` (docs/agents.md).
        ...(service || agent ? { modelServiceId: service || agent } : {}),
      });
      sessionStorage.setItem(`berth.client.${body.sessionId}`, body.clientId);
      props.done(body.sessionId);
    } catch (err) {
      props.onError((err as Error).message);
    }
  };
  return (
    <form class="new-session" onSubmit={create}>
      <label>
        Workspace
        <select value={cwd} onChange={(e) => setCwd((e.target as HTMLSelectElement).value)}>
          {props.workspaces.map((w) => (
            <option key={w.id} value={w.cwd}>
              {w.displayName} ({w.location})
            </option>
          ))}
        </select>
      </label>
      <label>
        Scope
        <select value={scope} onChange={(e) => setScope((e.target as HTMLSelectElement).value)}>
          <option value="thread">new thread</option>
          <option value="single">shared (single)</option>
        </select>
      </label>
      <label>
        Approval
        <select value={mode} onChange={(e) => setMode((e.target as HTMLSelectElement).value)}>
          {MODES.map((m) => (
            <option key={m}>{m}</option>
          ))}
        </select>
      </label>
      {props.agents.length > 0 && (
        <label>
          Agent
          <select value={agent} onChange={(e) => (setAgent((e.target as HTMLSelectElement).value), setService(''))}>
            <option value="">built-in</option>
            {props.agents.map((a) => (
              <option key={a.id} value={a.id}>
                {a.id}
                {a.default ? ' (default)' : ''}
              </option>
            ))}
          </select>
        </label>
      )}
      <label>
        {chosen ? 'Agent model' : 'Model service'}
        <select value={service} onChange={(e) => setService((e.target as HTMLSelectElement).value)}>
          <option value="">{chosen ? "the agent's own" : 'default'}</option>
          {chosen
            ? chosen.models.map((m) => (
                <option key={m.modelId} value={m.modelId.startsWith(`${chosen.id}/`) ? m.modelId : `${chosen.id}/${m.modelId}`}>
                  {m.name}
                </option>
              ))
            : props.models
                .filter((m) => !agentIds.has(m))
                .map((m) => (
                  <option key={m}>{m}</option>
                ))}
        </select>
      </label>
      <button type="submit" class="primary">
        Create
      </button>
    </form>
  );
}
