import { join } from 'node:path';
import { HOME_CONFIG_FILE, type ModelServiceSpec } from '../config/model-services.js';

/**
 * The one line `berth serve` prints after it listens (issue 11): which model
 * services and agents a prompt can use, or — when there is none, and the
 * first prompt would fail — how to add one.
 */
export function startupSummary(services: readonly ModelServiceSpec[], home: string): string {
  if (services.length === 0) {
    return (
      'berth: no model service is configured, so prompts will fail: set OPENAI_BASE_URL, OPENAI_API_KEY and OPENAI_MODEL, ' +
      `or list modelServices in ${join(home, HOME_CONFIG_FILE)} (npm run demo shows a whole turn without either)`
    );
  }
  const described = services.map((s, i) => {
    const models = s.models?.map((m) => m.id) ?? [];
    const model = s.defaultModel ?? models[0];
    const what = model ? `model ${model}` : 'models discovered from the service';
    return `${s.id} (${what}${i === 0 ? ', default' : ''})`;
  });
  return `berth: model services: ${described.join(', ')}; agent: built-in`;
}
