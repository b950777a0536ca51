import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { api, download } from './api';
import { loadHighlighterWhenIdle } from './highlight';
import { HISTORY_PAGE, openSession, type Loaded } from './session-link';
import type { Item } from './session-model';
import type { LinkState } from './sse';
import { Transcript } from './Transcript';

type Ask = Extract<Item, { kind: 'permission' }>;

const LINK_LABEL: Record<LinkState, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  resynced: 'Resynced',
  closed: 'Closed',
};

const enc = encodeURIComponent;
/** docs/client-api.md §5.11: the modes `POST /session/{id}/approval-mode` takes. */
const MODES = ['default', 'plan', 'auto-edit', 'auto', 'yolo'];

/** One session: the transcript from its replay and stream, the prompt box, cancel, model and export. */
export function SessionView({ sessionId, onError }: { sessionId: string; onError: (message: string) => void }) {
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [version, setVersion] = useState(0);
  const [link, setLink] = useState<LinkState>('connecting');
  const [draft, setDraft] = useState('');
  const [older, setOlder] = useState<{ anchor: string | null; cursor: string | null }>({ anchor: null, cursor: null });
  const input = useRef<HTMLTextAreaElement>(null);
  const bump = useCallback(() => setVersion((v) => v + 1), []);

  // A layout effect: opening starts as the view mounts, not a frame later.
  useLayoutEffect(() => {
    let current: Loaded | null = null;
    let gone = false;
    const take = (l: Loaded) => {
      if (gone) return l.stop();
      current?.stop();
      current = l;
      setLoaded(l);
      setOlder({ anchor: l.olderAnchor, cursor: null });
      bump();
    };
    setLoaded(null);
    openSession(sessionId, bump, setLink, take).then(take, (err: Error) => onError(err.message));
    return () => {
      gone = true;
      current?.stop();
    };
  }, [sessionId]);

  // Highlighting waits until the replay is on screen, then comes in at the next idle moment.
  useEffect(() => {
    if (loaded) loadHighlighterWhenIdle();
  }, [loaded !== null]);

  const headers: Record<string, string> = loaded ? { 'x-qwen-client-id': loaded.clientId } : {};
  const call = (method: string, path: string, body?: unknown) => api(method, path, body, headers).catch((err: Error) => onError(err.message));

  const send = async () => {
    const text = draft.trim();
    if (!text || !loaded) return;
    setDraft('');
    await call('POST', `/session/${enc(sessionId)}/prompt`, { prompt: [{ type: 'text', text }] });
  };
  const cancel = () => call('POST', `/session/${enc(sessionId)}/cancel`, {});
  const vote = (ask: Ask, optionId: string | null, answers?: Record<string, string>) =>
    call('POST', `/session/${enc(sessionId)}/permission/${enc(ask.requestId)}`, {
      outcome: optionId === null ? { outcome: 'cancelled' } : { outcome: 'selected', optionId },
      ...(answers ? { answers } : {}),
    });
  const switchModel = (modelId: string) => call('POST', `/session/${enc(sessionId)}/model`, { modelId });
  const switchMode = async (mode: string) => {
    const r = await call('POST', `/session/${enc(sessionId)}/approval-mode`, { mode });
    if (!r || !loaded) return;
    loaded.model.approvalMode = r.mode;
    bump();
  };
  const withdraw = async (promptId: string) => {
    await call('DELETE', `/session/${enc(sessionId)}/pending-prompts/${enc(promptId)}`);
  };
  const exportAs = async (format: string) => {
    try {
      const { blob, filename } = await download(`/session/${enc(sessionId)}/export?format=${format}`);
      const a = document.createElement('a');
      a.href = URL.createObjectURL(blob);
      a.download = filename;
      a.click();
      setTimeout(() => URL.revokeObjectURL(a.href), 1000);
    } catch (err) {
      onError((err as Error).message);
    }
  };
  // One older page at a time: every scroll event at the top asks again, and two answers for the
  // same cursor would put the same records in twice.
  // The ref guards against a second request before the next render; the state shows the page
  // as busy until its records are in the model, so a scroll that comes before then is not lost unseen.
  const paging = useRef(false);
  const [pagingOlder, setPagingOlder] = useState(false);
  const loadOlder = async () => {
    if (!loaded || (!older.anchor && !older.cursor) || paging.current) return;
    paging.current = true;
    setPagingOlder(true);
    const q = older.cursor ? `cursor=${enc(older.cursor)}` : `beforeRecordId=${enc(older.anchor!)}`;
    try {
      const page = await call('GET', `/session/${enc(sessionId)}/transcript?${q}&limit=${HISTORY_PAGE}`);
      if (!page) return;
      loaded.model.prepend(page.events ?? []);
      setOlder({ anchor: null, cursor: page.hasMore ? (page.nextCursor ?? null) : null });
      bump();
    } finally {
      paging.current = false;
      setPagingOlder(false);
    }
  };

  // Keyboard: Alt+A approves and Alt+R rejects the oldest open request; Escape cancels the running turn.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!loaded) return;
      const ask = loaded.model.pending().find((a) => !a.question);
      if (e.altKey && (e.key === 'a' || e.key === 'r') && ask) {
        const allow = e.key === 'a';
        const option = ask.options.find((o) => (allow ? o.kind === 'allow_once' : o.kind === 'reject_once')) ?? ask.options.find((o) => o.kind?.startsWith(allow ? 'allow' : 'reject'));
        e.preventDefault();
        void vote(ask, option ? option.optionId : null);
      } else if (e.key === 'Escape' && loaded.model.running) {
        e.preventDefault();
        void cancel();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });

  if (!loaded) return <div class="session loading">Opening session…</div>;
  const m = loaded.model;
  return (
    <div class="session">
      <div class="toolbar">
        <span class={`link link-${link}`} role="status">
          {LINK_LABEL[link]}
        </span>
        <label>
          Model{' '}
          <select aria-label="Model" value={m.modelId ?? ''} onChange={(e) => switchModel((e.target as HTMLSelectElement).value)}>
            {loaded.models.map((o) => (
              <option key={o.modelId} value={o.modelId}>
                {o.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Approval{' '}
          <select aria-label="Approval mode" value={m.approvalMode ?? 'default'} onChange={(e) => switchMode((e.target as HTMLSelectElement).value)}>
            {MODES.map((mode) => (
              <option key={mode}>{mode}</option>
            ))}
          </select>
        </label>
        {m.usage && <span class="muted">tokens {m.usage.inputTokens ?? 0}↑ {m.usage.outputTokens ?? 0}↓</span>}
        <select aria-label="Export" value="" onChange={(e) => exportAs((e.target as HTMLSelectElement).value)}>
          <option value="">Export…</option>
          <option value="html">HTML</option>
          <option value="md">Markdown</option>
          <option value="json">JSON</option>
          <option value="jsonl">JSONL</option>
        </select>
      </div>
      <Transcript
        model={m}
        version={version}
        hasOlder={older.anchor !== null || older.cursor !== null}
        loadOlder={loadOlder}
        pagingOlder={pagingOlder}
        vote={vote}
      />
      {m.queue.size > 0 && (
        <ol class="queue" aria-label="Queue">
          {[...m.queue].map(([promptId, text]) => (
            <li key={promptId}>
              <span class="queued-text">{text || '(no text)'}</span>
              <button type="button" class="link small" aria-label={`Withdraw: ${text}`} onClick={() => withdraw(promptId)}>
                Withdraw
              </button>
            </li>
          ))}
        </ol>
      )}
      <form
        class="composer"
        onSubmit={(e) => {
          e.preventDefault();
          void send();
        }}
      >
        <textarea
          ref={input}
          aria-label="Prompt"
          placeholder="Ask the agent… (Enter sends, Shift+Enter new line)"
          value={draft}
          onInput={(e) => setDraft((e.target as HTMLTextAreaElement).value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey) {
              e.preventDefault();
              void send();
            }
          }}
        />
        <div class="composer-actions">
          {m.queue.size > 0 && <span class="muted">{m.queue.size} queued</span>}
          {m.running && (
            <button type="button" class="reject" onClick={cancel}>
              Cancel turn
            </button>
          )}
          <button type="submit" disabled={draft.trim() === ''}>
            Send
          </button>
        </div>
      </form>
    </div>
  );
}
