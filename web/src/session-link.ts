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
 * Opens a session the way a reload must find it again: `load` (re-using this tab's client id,
 * kept in sessionStorage) gives the replay, `status` the pending permissions with their options,
 * and the event stream continues from the load's cursor. A resync runs the same steps again.
 */
export async function openSession(sessionId: string, onChange: () => void, onLink: (s: LinkState) => void, onRebuilt: (l: Loaded) => void): Promise<Loaded> {
  const known = sessionStorage.getItem(clientKey(sessionId)) ?? undefined;
  const load = async (): Promise<any> => {
    try {
      return await api('POST', `/session/${encodeURIComponent(sessionId)}/load`, {}, known ? { 'x-qwen-client-id': known } : {});
    } catch (err) {
      if (!(known && err instanceof ApiError && err.code === 'invalid_client_id')) throw err;
      return api('POST', `/session/${encodeURIComponent(sessionId)}/load`, {});
    }
  };
  const body = await load();
  // Status is read after the load (which brings a stored session back) and needs no client id.
  const statusRead = api('GET', `/session/${encodeURIComponent(sessionId)}/status`);
  const clientId: string = body.clientId;
  sessionStorage.setItem(clientKey(sessionId), clientId);
  const model = new SessionModel();
  for (const e of [...(body.compactedReplay ?? []), ...(body.liveJournal ?? [])]) model.apply(e);
  model.modelId = body.state?.models?.currentModelId ?? model.modelId;
  model.approvalMode = body.state?.modes?.currentModeId ?? model.approvalMode;
  model.running = body.hasActivePrompt === true;
  for (const p of (await statusRead).pendingInteractions ?? []) model.restorePending(p);
  // The queue as it stands now (a load's replay does not say which prompts still wait).
  const pending = await api('GET', `/session/${encodeURIComponent(sessionId)}/pending-prompts`, undefined, { 'x-qwen-client-id': clientId }).catch(() => null);
  if (pending) {
    model.queue.clear();
    for (const p of pending.pendingPrompts ?? []) if (p.state === 'queued') model.queue.set(p.promptId, p.text ?? '');
  }
  let stop = () => {};
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
  return {
    model,
    clientId,
    models: (body.state?.models?.availableModels ?? []).map((m: any) => ({ modelId: m.modelId, name: m.name ?? m.modelId })),
    olderAnchor: body.historyHasMore ? (body.historyAnchorRecordId ?? null) : null,
    stop: () => stop(),
  };
}
