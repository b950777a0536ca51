import { exportMessage } from './json.js';
import type { ExportWriter } from './writer.js';

/**
 * `format=jsonl` (docs/client-api.md §10.2): a `session_metadata` line first, then one line
 * per message. JSON escapes every line break inside values, so one value never
 * spans two lines.
 */
export const jsonlWriter: ExportWriter = {
  head: (meta) => JSON.stringify({ type: 'session_metadata', ...meta }),
  entry: (e, _index, meta) => `\n${JSON.stringify(exportMessage(meta.sessionId, e))}`,
  foot: () => '\n',
};
