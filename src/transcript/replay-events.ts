import type { EventEnvelope } from '../events/types.js';
import { TRUNCATED_KEY } from './bound-record.js';
import type { TranscriptRecord } from './records.js';

/**
 * Transcript records as events again (docs/client-api.md §5.3 compacted replay, §10.1
 * transcript pages): what a client needs to rebuild its view of a session
 * from storage. Streamed chunks come back merged (one record, one chunk), a
 * tool call as its `tool_call` plus one final `tool_call_update`.
 */

/** Where each rebuilt event names the record it came from (a `beforeRecordId` anchor). */
export const RECORD_ID_META = 'berth.session.recordId';
/** The same id under qwen's key, so clients written against qwen page with it unchanged (docs/client-api.md §10.1). */
export const QWEN_RECORD_ID_META = 'qwen.session.recordId';

export interface ReplayEvent {
  readonly type: string;
  /** For `session_update`, the flat ACP update; for other types, the event payload without `sessionId`. */
  readonly data: Record<string, unknown>;
  readonly promptId?: string;
  readonly at: number;
  readonly recordId: string;
}

type Data = Record<string, unknown>;

const obj = (v: unknown): Data => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Data) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** On an event rebuilt from a record stored as a preview: `{bytes}`, the size of the whole record, which the export carries. */
export const TRUNCATED_META = 'berth.record.truncated';

function update(r: TranscriptRecord, fields: Data, meta: Data = {}): ReplayEvent {
  const ids = {
    [RECORD_ID_META]: r.recordId,
    [QWEN_RECORD_ID_META]: r.recordId,
    ...(r.data[TRUNCATED_KEY] !== undefined ? { [TRUNCATED_META]: r.data[TRUNCATED_KEY] } : {}),
  };
  const promptMeta = r.promptId ? { promptId: r.promptId } : {};
  return {
    type: 'session_update',
    data: { ...fields, _meta: { ...meta, ...promptMeta, timestamp: r.at, ...ids } },
    ...(r.promptId ? { promptId: r.promptId } : {}),
    at: r.at,
    recordId: r.recordId,
  };
}

function other(r: TranscriptRecord, type: string, data: Data): ReplayEvent {
  return { type, data, ...(r.promptId ? { promptId: r.promptId } : {}), at: r.at, recordId: r.recordId };
}

function textChunk(r: TranscriptRecord, sessionUpdate: string): ReplayEvent[] {
  const text = str(r.data.text) ?? '';
  const out: ReplayEvent[] = [];
  if (text !== '') out.push(update(r, { sessionUpdate, content: { type: 'text', text } }));
  // qwen's per-model-call usage record: an empty chunk carrying `_meta.usage` (docs/client-api.md §8.1).
  if (r.data.usage) out.push(update(r, { sessionUpdate, content: { type: 'text', text: '' } }, { usage: r.data.usage }));
  return out;
}

function turnEnd(r: TranscriptRecord): ReplayEvent {
  const base = { ...(r.promptId ? { promptId: r.promptId } : {}) };
  if (typeof r.data.stopReason === 'string') {
    return other(r, 'turn_complete', {
      ...base,
      stopReason: r.data.stopReason,
      ...(r.data.promptCancelled ? { promptCancelled: r.data.promptCancelled } : {}),
      ...(r.data.usage ? { usage: r.data.usage } : {}),
      ...(r.data.branchPoint ? { branchPoint: r.data.branchPoint } : {}),
    });
  }
  const error = obj(r.data.error);
  return other(r, 'turn_error', {
    ...base,
    message: str(error.message) ?? 'The turn failed',
    ...(typeof error.code === 'string' ? { code: error.code } : {}),
    ...(typeof error.errorKind === 'string' ? { errorKind: error.errorKind } : {}),
    ...(r.data.interrupted === true ? { interrupted: true } : {}),
    ...(r.data.started === false ? { started: false } : {}),
  });
}

/** The events one record stands for; none for an unreadable record or a kind this build does not know. */
export function recordEvents(r: TranscriptRecord): ReplayEvent[] {
  if (r.unreadable) return [];
  const d = r.data;
  switch (r.kind) {
    case 'user_prompt':
      return arr(d.content).map((block) => update(r, { sessionUpdate: 'user_message_chunk', content: block }));
    case 'mid_turn_message':
      return arr(d.content).map((block) => update(r, { sessionUpdate: 'user_message_chunk', content: block }, { source: 'mid-turn-message', messageId: d.messageId }));
    case 'agent_message':
      return textChunk(r, 'agent_message_chunk');
    case 'agent_thought':
      return textChunk(r, 'agent_thought_chunk');
    case 'tool_call':
      return [
        update(
          r,
          {
            sessionUpdate: 'tool_call',
            toolCallId: d.toolCallId,
            title: d.title ?? d.name,
            kind: d.kind ?? 'other',
            status: 'pending',
            content: [],
            locations: arr(d.locations),
            rawInput: obj(d.args),
          },
          typeof d.name === 'string' ? { toolName: d.name } : {},
        ),
      ];
    case 'tool_result':
      return [
        update(r, {
          sessionUpdate: 'tool_call_update',
          toolCallId: d.toolCallId,
          status: d.status,
          content: arr(d.content),
          ...(d.rawOutput !== undefined && d.rawOutput !== null ? { rawOutput: d.rawOutput } : {}),
        }),
      ];
    case 'plan':
      return [update(r, { sessionUpdate: 'plan', entries: arr(d.entries) })];
    case 'permission_request':
      return [other(r, 'permission_request', { requestId: d.requestId, toolCall: obj(d.toolCall), options: arr(d.options) })];
    case 'permission_outcome':
      return [other(r, 'permission_resolved', { ...d })];
    case 'model_switch':
      return [
        typeof d.modelId === 'string'
          ? other(r, 'model_switched', { modelId: d.modelId })
          : other(r, 'model_switch_failed', { requestedModelId: d.requestedModelId, error: d.error }),
      ];
    case 'metadata':
      return [other(r, 'session_metadata_updated', { ...d })];
    case 'approval_mode':
      return [other(r, 'approval_mode_changed', { previous: d.previous, next: d.next, persisted: d.persisted === true })];
    case 'rewind':
      return [other(r, 'session_rewound', { ...d })];
    case 'turn_end':
      return [turnEnd(r)];
    case 'module_message':
      return [other(r, 'module_message', { ...d })];
    case 'compaction':
      return [update(r, { sessionUpdate: 'context_compacted', ...d })];
    default:
      return [];
  }
}

/** The kinds that stand for exactly one event (when readable); see recordEvents. */
const ONE_EVENT_KINDS = new Set([
  'tool_call',
  'tool_result',
  'plan',
  'permission_request',
  'permission_outcome',
  'model_switch',
  'metadata',
  'approval_mode',
  'rewind',
  'turn_end',
  'module_message',
  'compaction',
]);

/**
 * `recordEvents(r).length` without building the events: a load's `history_truncated` marker counts
 * the events of every record it leaves out, which on a long transcript is thousands of records
 * (test/unit/transcript/replay-events.test.ts holds the two to the same answer for every kind).
 */
export function eventCount(r: TranscriptRecord): number {
  if (r.unreadable) return 0;
  const d = r.data;
  switch (r.kind) {
    case 'user_prompt':
    case 'mid_turn_message':
      return arr(d.content).length;
    case 'agent_message':
    case 'agent_thought':
      return ((str(d.text) ?? '') !== '' ? 1 : 0) + (d.usage ? 1 : 0);
    default:
      return ONE_EVENT_KINDS.has(r.kind) ? 1 : 0;
  }
}

/** The transcript page form (docs/client-api.md §10.1): id-less, flat `session_update` data, the record id in `_meta`. */
export function flatEnvelope(e: ReplayEvent): EventEnvelope {
  if (e.type === 'session_update') return { v: 1, type: e.type, data: e.data };
  return {
    v: 1,
    type: e.type,
    data: e.data,
    ...(e.promptId ? { promptId: e.promptId } : {}),
    _meta: { timestamp: e.at, [RECORD_ID_META]: e.recordId, [QWEN_RECORD_ID_META]: e.recordId },
  };
}

/**
 * The load snapshot form (docs/client-api.md §5.3): the SSE shape, `{sessionId, update}` for
 * `session_update` and `sessionId` in every payload, with the bus id when one
 * was given (a cold load numbers its snapshot 1..N).
 */
export function wrappedEnvelope(sessionId: string, e: ReplayEvent, id?: number): EventEnvelope {
  const data = e.type === 'session_update' ? { sessionId, update: e.data } : { sessionId, ...e.data };
  const meta: Data = { serverTimestamp: e.at };
  if (e.type !== 'session_update') Object.assign(meta, { [RECORD_ID_META]: e.recordId, [QWEN_RECORD_ID_META]: e.recordId });
  return {
    ...(id !== undefined ? { id } : {}),
    v: 1,
    type: e.type,
    data,
    ...(e.promptId ? { promptId: e.promptId } : {}),
    _meta: meta,
  };
}
