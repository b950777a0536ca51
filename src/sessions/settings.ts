import { bindPr, normalizeDisplayName, type SessionPr } from './metadata.js';
import type { Session } from './session.js';

/**
 * Changes a client makes to a live session besides prompting: its name and
 * pull requests (docs/client-api.md §5.6) and its model (docs/client-api.md §5.7). Each is persisted and
 * published so passive subscribers see it.
 */

export function updateMetadata(
  session: Session,
  input: { displayName?: unknown; pr?: SessionPr },
  clientId: string | undefined,
): Record<string, unknown> {
  session.assertOpen();
  const { clock, sessions } = session.services;
  const displayName = input.displayName !== undefined ? normalizeDisplayName(input.displayName) : undefined;
  const prs = input.pr !== undefined ? bindPr(session.prs, input.pr) : undefined;
  const now = clock.now();
  if (displayName !== undefined) {
    session.displayName = displayName;
    sessions.update(session.id, { displayName, titleSource: 'manual' }, now);
    session.publish({
      type: 'session_metadata_updated',
      originatorClientId: clientId,
      data: { sessionId: session.id, displayName, titleSource: 'manual' },
    });
  }
  if (prs !== undefined) {
    session.prs = prs;
    sessions.update(session.id, { prs }, now);
    // The SDK reducer reads displayName from every metadata event, so PR changes carry it too.
    session.publish({
      type: 'session_metadata_updated',
      originatorClientId: clientId,
      data: { sessionId: session.id, prs, ...(session.displayName ? { displayName: session.displayName } : {}) },
    });
  }
  return {
    sessionId: session.id,
    ...(session.displayName !== null ? { displayName: session.displayName } : {}),
    ...(session.prs.length > 0 ? { prs: session.prs } : {}),
  };
}

export async function switchModel(
  session: Session,
  modelId: string,
  clientId: string | undefined,
): Promise<Record<string, unknown>> {
  session.assertOpen();
  const { driver, sessions, clock } = session.services;
  try {
    await driver.setModel(modelId);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    session.publish({
      type: 'model_switch_failed',
      originatorClientId: clientId,
      data: { sessionId: session.id, requestedModelId: modelId, error: message },
    });
    throw err;
  }
  const current = driver.state().models.currentModelId ?? modelId;
  sessions.update(session.id, { modelId: current }, clock.now());
  session.publish({ type: 'model_switched', originatorClientId: clientId, data: { sessionId: session.id, modelId: current } });
  return { _meta: { berthModelSwitch: { modelId: current } } };
}
