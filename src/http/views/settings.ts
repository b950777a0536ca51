import type { SessionMetadata } from '../../sessions/settings.js';
import type { SessionMetadataResult, SessionModelResult } from '../openapi.gen.js';

/** `PATCH /session/{id}/metadata` (contract `SessionMetadataResult`): what the session is called and bound to now. */
export function metadataResult(sessionId: string, metadata: SessionMetadata): SessionMetadataResult {
  return {
    sessionId,
    ...(metadata.displayName !== null ? { displayName: metadata.displayName } : {}),
    ...(metadata.prs.length > 0 ? { prs: metadata.prs as SessionMetadataResult['prs'] } : {}),
  };
}

/** `POST /session/{id}/model` (contract `SessionModelResult`). */
export function modelSwitchResult(modelId: string): SessionModelResult {
  return { _meta: { berthModelSwitch: { modelId } } };
}
