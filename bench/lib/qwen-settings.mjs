// qwen's `settings.json` for a run on the scripted model, as shared/reference/qwen-serve/INDEX.md
// set it: openai auth, the two model ids on the scripted server, and the per-turn background work
// (memory extraction, follow-up suggestions, update checks, telemetry) off, so the model sees one
// request per turn. Used for `qwen serve` (the peer) and for `qwen --acp` as a Berth agent.
import { MODEL_ID, MODEL_IDS } from './model-ids.mjs';

export function qwenSettings(modelUrl) {
  const provider = (id, name) => ({ id, name, baseUrl: modelUrl, envKey: 'OPENAI_API_KEY' });
  return {
    security: { auth: { selectedType: 'openai' } },
    model: { name: MODEL_ID },
    modelProviders: { openai: [provider(MODEL_ID, 'Mock Model'), provider(MODEL_IDS[1], 'Mock Model Two')] },
    privacy: { usageStatisticsEnabled: false },
    general: { disableAutoUpdate: true, disableUpdateNag: true },
    telemetry: { enabled: false },
    memory: { enableManagedAutoMemory: false, enableManagedAutoDream: false },
    ui: { enableFollowupSuggestions: false },
  };
}
