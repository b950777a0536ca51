import { api, ApiError } from './api';
import { SessionModel } from './session-model';
import { followEvents, type LinkState } from './sse';

const clientKey = (sessionId: string) => `berth.client.${sessionId}`;

export interface Loaded {
  readonly model: SessionModel;
  readonly clientId: string;
  readonly models: { modelId: string; name: string }[];
  readonly olderAnchor: string | null;
  readonly stop: () => void;
}

/**
 * Records in the load's replay (the daemon's default is 500): the first screen and the overscan
 * above it (web/src/Transcript.tsx) of an ordinary session, a few screens. Each record costs the
 * daemon, the wire and the page's parse before anything shows, so the first page is no bigger
 * than that; the view pages older records in, HISTORY_PAGE at a time, as the reader scrolls up
 * (SessionView `loadOlder`), so a long session sends only its end.
 */
export const FIRST_PAGE = 80;
/** Records per older page the view asks for as the reader scrolls up. */
export const HISTORY_PAGE = 200;

/** `POST /session/{id}/load`, re-using this tab's client id (kept in sessionStorage) while the daemon still knows it. */
async function load(sessionId: string): Promise<any> {
  const known = sessionStorage.getItem(clientKey(sessionId)) ?? undefined;
  const path = `/session/${encodeURIComponent(sessionId)}/load`;
  try {
    return await api('POST', path, { historyPageSize: FIRST_PAGE }, known ? { 'x-qwen-client-id': known } : {});
  } catch (err) {
    if (!(known && err instanceof ApiError && err.code === 'invalid_client_id')) throw err;
    return api('POST', path, { historyPageSize: FIRST_PAGE });
  }
}

/** A load started as the page starts, before it knows whether its token is taken (see `preload`). */
let early: { sessionId: string; body: Promise<any> } | null = null;

/**
 * Starts loading the session the address names while the page is still checking its token, so
 * the two round trips overlap instead of following each other. The first `openSession` of that
 * session takes the answer; one that failed (no token yet: 401) is simply asked again.
 */
export function preload(sessionId: string): void {
  const body = load(sessionId);
  body.catch(() => {});
  early = { sessionId, body };
}

/**
 * Opens a session the way a reload must find it again: `load` gives the replay (the session is
 * shown from it at once), `status` the pending permissions with their options, `pending-prompts`
 * the queue, and the event stream continues from the load's cursor. A resync runs the same steps again.
 */
export async function openSession(sessionId: string, onChange: () => void, onLink: (s: LinkState) => void, onRebuilt: (l: Loaded) => void): Promise<Loaded> {
  const started = early?.sessionId === sessionId ? early.body : null;
  early = null;
  const body = started ? await started.catch(() => load(sessionId)) : await load(sessionId);
  const clientId: string = body.clientId;
  sessionStorage.setItem(clientKey(sessionId), clientId);
  // Both are read after the load (which brings a stored session back), side by side.
  const statusRead = api('GET', `/session/${encodeURIComponent(sessionId)}/status`);
  // The queue as it stands now (a load's replay does not say which prompts still wait).
  const pendingRead = api('GET', `/session/${encodeURIComponent(sessionId)}/pending-prompts`, undefined, { 'x-qwen-client-id': clientId }).catch(() => null);
  const model = new SessionModel();
  for (const e of [...(body.compactedReplay ?? []), ...(body.liveJournal ?? [])]) model.apply(e);
  model.modelId = body.state?.models?.currentModelId ?? model.modelId;
  model.approvalMode = body.state?.modes?.currentModeId ?? model.approvalMode;
  model.running = body.hasActivePrompt === true;
  // The view shows the replay now; the pending asks and the queue fill in a round trip later, and
  // only then does the stream start, so an event it brings (a permission resolved) finds them.
  let stopped = false;
  let stop = () => {
    stopped = true;
  };
  void Promise.all([statusRead.catch(() => null), pendingRead]).then(([status, pending]) => {
    if (stopped) return;
    for (const p of status?.pendingInteractions ?? []) model.restorePending(p);
    if (pending) {
      model.queue.clear();
      for (const p of pending.pendingPrompts ?? []) if (p.state === 'queued') model.queue.set(p.promptId, p.text ?? '');
    }
    onChange();
    stop = followEvents({
      sessionId,
      clientId,
      lastEventId: body.lastEventId ?? 0,
      epoch: body.eventEpoch ?? '',
      onEvent: (e) => {
        model.apply(e);
        onChange();
      },
      onState: onLink,
      onResync: () => {
        stop();
        void openSession(sessionId, onChange, onLink, onRebuilt).then((l) => {
          onLink('resynced');
          onRebuilt(l);
        });
      },
    });
  });
  return {
    model,
    clientId,
    models: (body.state?.models?.availableModels ?? []).map((m: any) => ({ modelId: m.modelId, name: m.name ?? m.modelId })),
    olderAnchor: body.historyHasMore ? (body.historyAnchorRecordId ?? null) : null,
    stop: () => stop(),
  };
}
