import { useEffect, useState } from 'preact/hooks';
import { api } from './api';
import type { Workspace } from './Sidebar';

interface Waiting {
  readonly messageId: string;
  readonly fromTab: string;
  readonly from: string;
  readonly kind: string;
  readonly text: string;
  readonly sentAt: string;
}
/** A `module_message` record: `out` what the tab sent (to a tab, with the outcome), `in` what reached its agent. */
interface Exchanged {
  readonly recordId: string;
  readonly at: string;
  readonly direction: 'in' | 'out';
  readonly to?: string;
  readonly from?: string;
  readonly kind: string;
  readonly text: string;
  readonly ok?: boolean;
  readonly result?: string;
}
interface TabEntry {
  readonly sessionId: string;
  readonly tab: string;
  readonly title: string;
  readonly harness: string;
  readonly profile: string;
  readonly network: boolean;
  readonly delivery: 'prompt' | 'inbox';
  readonly waiting: number;
  readonly trouble: string | null;
  readonly inbox: Waiting[];
  readonly messages: Exchanged[];
}
interface AppTool {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly category: string;
  readonly policy: string;
  readonly available: boolean;
  readonly reason?: string;
}
interface Application {
  readonly applicationId: string;
  readonly connected: boolean;
  readonly tools: AppTool[];
}

/** How often the panels are read again while they are on screen: they change when agents act, not when we do. */
const REFRESH_MS = 3000;
const cwdKey = (ws: Workspace) => encodeURIComponent(ws.cwd);

/** One workspace's agent tabs (module protocol: inboxes, messages between tabs) and connected applications (tool protocol). */
export function WorkspacePanel({ workspaces, onError }: { workspaces: readonly Workspace[]; onError: (m: string) => void }) {
  const [wsId, setWsId] = useState(workspaces[0]?.id ?? '');
  const [tabs, setTabs] = useState<TabEntry[] | null>(null);
  const [apps, setApps] = useState<Application[] | null>(null);
  const ws = workspaces.find((w) => w.id === wsId);

  useEffect(() => {
    if (!ws) return;
    let stopped = false;
    const read = () =>
      Promise.all([
        api<{ tabs: TabEntry[] }>('GET', `/workspace/${cwdKey(ws)}/tabs`),
        api<{ applications: Application[] }>('GET', `/workspace/${cwdKey(ws)}/applications`),
      ]).then(
        ([t, a]) => stopped || (setTabs(t.tabs), setApps(a.applications)),
        (err: Error) => stopped || onError(err.message),
      );
    void read();
    const timer = setInterval(read, REFRESH_MS);
    return () => ((stopped = true), clearInterval(timer));
  }, [wsId]);

  return (
    <div class="workspace-panel">
      <div class="toolbar">
        <label>
          Workspace{' '}
          <select aria-label="Workspace" value={wsId} onChange={(e) => setWsId((e.target as HTMLSelectElement).value)}>
            {workspaces.map((w) => (
              <option key={w.id} value={w.id}>
                {w.displayName} ({w.location})
              </option>
            ))}
          </select>
        </label>
      </div>
      <div class="panels">
        <section aria-label="Agent tabs">
          <h2>Agent tabs</h2>
          {tabs === null ? <p class="muted">Loading…</p> : tabs.length === 0 ? <p class="muted">No session is open in this workspace.</p> : tabs.map((t) => <TabCard key={t.sessionId} tab={t} />)}
        </section>
        <section aria-label="Connected applications">
          <h2>Connected applications</h2>
          {apps === null ? <p class="muted">Loading…</p> : apps.length === 0 ? <p class="muted">No application has published tools here.</p> : apps.map((a) => <AppCard key={a.applicationId} app={a} />)}
        </section>
      </div>
    </div>
  );
}

function TabCard({ tab }: { tab: TabEntry }) {
  return (
    <article class="card tab-card" data-tab={tab.tab}>
      <header>
        <a href={`#/s/${tab.sessionId}`}>
          tab {tab.tab}
          {tab.title !== `tab ${tab.tab}` ? ` · ${tab.title}` : ''}
        </a>{' '}
        <span class="badge">{tab.harness}</span> <span class="badge">{tab.profile}</span>{' '}
        <span class="muted">
          {tab.delivery === 'inbox' ? 'reads its inbox' : 'gets messages as prompts'} · {tab.network ? 'network' : 'no network'}
        </span>
      </header>
      {tab.trouble && <p class="refused">{tab.trouble}</p>}
      <h3>Inbox ({tab.waiting} waiting)</h3>
      {tab.inbox.length === 0 ? (
        <p class="muted">Empty.</p>
      ) : (
        <ul class="messages">
          {tab.inbox.map((m) => (
            <li key={m.messageId} class="message waiting">
              <span class="muted">
                from tab {m.fromTab} ({m.from}) · {m.kind}
              </span>
              <div class="message-text">{m.text}</div>
            </li>
          ))}
        </ul>
      )}
      {tab.messages.length > 0 && (
        <>
          <h3>Messages</h3>
          <ul class="messages">
            {tab.messages.map((m) => (
              <li key={m.recordId} class={`message ${m.direction}${m.ok === false ? ' refused' : ''}`}>
                <span class="muted">
                  {m.direction === 'out' ? `→ to tab ${m.to}` : `← from ${m.from}`} · {m.kind}
                  {m.ok === false ? ' · refused' : ''}
                </span>
                <div class="message-text">{m.text}</div>
              </li>
            ))}
          </ul>
        </>
      )}
    </article>
  );
}

function AppCard({ app }: { app: Application }) {
  return (
    <article class="card app-card">
      <header>
        <strong>{app.applicationId}</strong> <span class={`badge ${app.connected ? 'state-live' : ''}`}>{app.connected ? 'connected' : 'disconnected'}</span>
      </header>
      <table class="catalog">
        <tbody>
          {app.tools.map((t) => (
            <tr key={t.name} class={t.available ? '' : 'unavailable'}>
              <td>
                <code>{t.name}</code>
                {t.title && <div class="muted">{t.title}</div>}
              </td>
              <td>
                <span class={`badge policy-${t.policy}`}>{t.policy}</span>
              </td>
              <td>
                {t.description}
                {!t.available && t.reason && <div class="refused">{t.reason}</div>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </article>
  );
}
