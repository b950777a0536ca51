import type { ExportDocument } from './document.js';
import { exportMessages } from './json.js';

/**
 * `format=jsonl` (docs/client-api.md §10.2): a `session_metadata` line first, then one line
 * per message. JSON escapes every line break inside values, so one value never
 * spans two lines.
 */
export function renderJsonl(doc: ExportDocument): string {
  const lines = [JSON.stringify({ type: 'session_metadata', ...doc.meta }), ...exportMessages(doc).map((m) => JSON.stringify(m))];
  return `${lines.join('\n')}\n`;
}
