import { MODULE_MOST_LINE } from '../protocol/limits.js';
import { ALL, KINDS, type MessageKind, type Question, type Request } from './types.js';

/** docs/modules.md `Malformed`: a line that is not a question, with the reason a peer is told. */
export interface Malformed {
  readonly malformed: true;
  readonly reason: string;
}

const malformed = (reason: string): Malformed => ({ malformed: true, reason });

export function isMalformed(value: Question | Malformed): value is Malformed {
  return 'malformed' in value;
}

const KEYS: Record<Request['op'], readonly string[]> = {
  list: ['token', 'op', 'session'],
  inbox: ['token', 'op', 'session'],
  peek: ['token', 'op', 'session'],
  send: ['token', 'op', 'session', 'tab', 'text', 'kind'],
};

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * docs/modules.md `parse`: reads one question line, whole or not at all. A line over
 * MOST_LINE bytes is not even parsed; a line that is not UTF-8 JSON, not an
 * object, or not exactly one of the shapes (`list`, `send`, `inbox`, `peek`,
 * with `token` and optionally `session`) is Malformed — unknown fields too, so
 * nothing in a line Berth does not fully understand is acted on. The text's
 * length (MOST_TEXT) is a rule of `send`, refused there with its own words.
 */
export function parseQuestion(line: Uint8Array | string): Question | Malformed {
  const bytes = typeof line === 'string' ? Buffer.byteLength(line) : line.byteLength;
  if (bytes > MODULE_MOST_LINE) return malformed(`the line is longer than ${MODULE_MOST_LINE} bytes`);
  let text: string;
  try {
    text = typeof line === 'string' ? line : utf8.decode(line);
  } catch {
    return malformed('the line is not UTF-8');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return malformed('the line is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return malformed('the line is not a JSON object');
  const o = value as Record<string, unknown>;
  if (typeof o.token !== 'string') return malformed('"token" must be a string');
  const op = o.op;
  if (op !== 'list' && op !== 'send' && op !== 'inbox' && op !== 'peek') {
    return malformed('"op" must be one of list, send, inbox, peek');
  }
  const extra = Object.keys(o).find((k) => !KEYS[op].includes(k));
  if (extra !== undefined) return malformed(`"${extra}" is not a field of a ${op} question`);
  if (o.session !== undefined && typeof o.session !== 'string') return malformed('"session" must be a string');
  const session = o.session as string | undefined;
  const base = { token: o.token, ...(session !== undefined ? { session } : {}) };
  if (op !== 'send') return { ...base, request: { op } };
  if (typeof o.tab !== 'string' || o.tab === '') return malformed(`"tab" must be a tab's number, its title, or "${ALL}"`);
  if (typeof o.text !== 'string') return malformed('"text" must be a string');
  if (o.kind !== undefined && !KINDS.includes(o.kind as MessageKind)) {
    return malformed(`"kind" must be one of ${KINDS.join(', ')}`);
  }
  // docs/modules.md Kind: `info` when the question names none, so servers written before kinds still work.
  const kind = (o.kind as MessageKind | undefined) ?? 'info';
  return { ...base, request: { op, tab: o.tab, text: o.text, kind } };
}
