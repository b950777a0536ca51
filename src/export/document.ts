import type { ExportRecord, ExportSession } from './source.js';

/**
 * A persisted session as one readable document (docs/client-api.md §10.2): what every export
 * format renders. Built from the transcript records in order, with each tool
 * call joined to its result and each permission request to its decision, so a
 * renderer only lays entries out.
 */
export interface ExportMeta {
  readonly sessionId: string;
  readonly title: string | null;
  readonly startTime: string;
  readonly lastUpdated: string;
  readonly exportTime: string;
  readonly cwd: string | null;
  readonly model: string | null;
  readonly approvalMode: string;
  readonly promptCount: number;
  readonly totalTokens: number;
  readonly recordCount: number;
  /** Records that could not be read (shown as such, never silently dropped). */
  readonly unreadableRecords: number;
}

interface Base {
  readonly recordId: string;
  readonly promptId: string | null;
  readonly at: number;
}

export type Block = Record<string, unknown> & { readonly type: string };

export interface PermissionDecision {
  readonly outcome: 'selected' | 'cancelled';
  readonly optionId?: string;
  /** The option's label and kind (allow_once, reject_always…) as offered. */
  readonly label?: string;
  readonly optionKind?: string;
  readonly reason?: string;
  readonly voterClientId?: string;
}

export type ExportEntry =
  | (Base & { readonly kind: 'user'; readonly blocks: readonly Block[] })
  | (Base & { readonly kind: 'assistant'; readonly text: string })
  | (Base & { readonly kind: 'thought'; readonly text: string })
  | (Base & {
      readonly kind: 'tool';
      readonly toolCallId: string;
      readonly name: string;
      readonly title: string;
      readonly toolKind: string;
      readonly args: Record<string, unknown>;
      /** `completed` / `failed` once a result was recorded; `no result` when the turn ended first. */
      status: string;
      output: string;
      rawOutput: unknown;
    })
  | (Base & {
      readonly kind: 'permission';
      readonly requestId: string;
      readonly title: string;
      readonly question: string | null;
      readonly options: readonly { optionId: string; name: string; kind: string }[];
      decision: PermissionDecision | null;
    })
  | (Base & { readonly kind: 'plan'; readonly entries: readonly { content: string; status: string; priority: string }[] })
  | (Base & { readonly kind: 'event'; readonly title: string; readonly detail: string })
  | (Base & {
      readonly kind: 'turn_end';
      readonly stopReason: string | null;
      readonly error: { readonly message: string; readonly code: string | null } | null;
      readonly interrupted: boolean;
      /** A queued prompt the daemon lost before it ran (reported, never dropped). */
      readonly unstartedPrompt: string | null;
    })
  | (Base & { readonly kind: 'unreadable' });

export interface ExportDocument {
  readonly meta: ExportMeta;
  readonly entries: readonly ExportEntry[];
}

type Data = Record<string, unknown>;
const obj = (v: unknown): Data => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Data) : {});
const str = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback);
const iso = (ms: number) => new Date(ms).toISOString();

/** The text a tool result shows a reader: its text blocks, else its raw output as JSON. */
function outputText(d: Data): string {
  const texts: string[] = [];
  for (const item of Array.isArray(d.content) ? d.content : []) {
    const c = obj(obj(item).content);
    if (c.type === 'text' && typeof c.text === 'string') texts.push(c.text);
    else if (c.type === 'image') texts.push(`[image ${str(c.mimeType)}]`);
  }
  if (texts.length > 0) return texts.join('\n');
  return d.rawOutput === undefined || d.rawOutput === null ? '' : JSON.stringify(d.rawOutput, null, 2);
}

export function buildExportDocument(input: {
  readonly row: ExportSession;
  readonly records: readonly ExportRecord[];
  readonly cwd: string | null;
  readonly now: number;
}): ExportDocument {
  const { row, records } = input;
  const entries: ExportEntry[] = [];
  const tools = new Map<string, Extract<ExportEntry, { kind: 'tool' }>>();
  const permissions = new Map<string, Extract<ExportEntry, { kind: 'permission' }>>();
  let totalTokens = 0;
  let promptCount = 0;
  let unreadable = 0;

  for (const r of records) {
    const base: Base = { recordId: r.recordId, promptId: r.promptId, at: r.at };
    const d = r.data;
    if (r.unreadable) {
      unreadable += 1;
      entries.push({ ...base, kind: 'unreadable' });
      continue;
    }
    switch (r.kind) {
      case 'user_prompt':
        promptCount += 1;
        entries.push({ ...base, kind: 'user', blocks: (Array.isArray(d.content) ? d.content : []).filter((b): b is Block => typeof obj(b).type === 'string') });
        break;
      case 'agent_message':
        totalTokens += Number(obj(d.usage).totalTokens) || 0;
        if (str(d.text) !== '') entries.push({ ...base, kind: 'assistant', text: str(d.text) });
        break;
      case 'agent_thought':
        if (str(d.text) !== '') entries.push({ ...base, kind: 'thought', text: str(d.text) });
        break;
      case 'tool_call': {
        const entry: Extract<ExportEntry, { kind: 'tool' }> = {
          ...base,
          kind: 'tool',
          toolCallId: str(d.toolCallId),
          name: str(d.name, str(d.title, 'tool')),
          title: str(d.title, str(d.name, 'tool')),
          toolKind: str(d.kind, 'other'),
          args: obj(d.args),
          status: 'no result',
          output: '',
          rawOutput: undefined,
        };
        tools.set(entry.toolCallId, entry);
        entries.push(entry);
        break;
      }
      case 'tool_result': {
        const call = tools.get(str(d.toolCallId));
        if (call) {
          call.status = str(d.status, 'completed');
          call.output = outputText(d);
          call.rawOutput = d.rawOutput;
        }
        break;
      }
      case 'permission_request': {
        const toolCall = obj(d.toolCall);
        const meta = obj(toolCall._meta);
        const questions = Array.isArray(meta.questions) ? meta.questions.map((q) => str(obj(q).question)).filter(Boolean) : [];
        const entry: Extract<ExportEntry, { kind: 'permission' }> = {
          ...base,
          kind: 'permission',
          requestId: str(d.requestId),
          title: str(toolCall.title, 'Tool call'),
          question: questions.length > 0 ? questions.join('\n') : null,
          options: (Array.isArray(d.options) ? d.options : []).map((o) => ({
            optionId: str(obj(o).optionId),
            name: str(obj(o).name, str(obj(o).optionId)),
            kind: str(obj(o).kind),
          })),
          decision: null,
        };
        permissions.set(entry.requestId, entry);
        entries.push(entry);
        break;
      }
      case 'permission_outcome': {
        const request = permissions.get(str(d.requestId));
        if (!request) break;
        const outcome = obj(d.outcome);
        const chosen = request.options.find((o) => o.optionId === outcome.optionId);
        request.decision = {
          outcome: outcome.outcome === 'selected' ? 'selected' : 'cancelled',
          ...(typeof outcome.optionId === 'string' ? { optionId: outcome.optionId } : {}),
          ...(chosen ? { label: chosen.name, optionKind: chosen.kind } : {}),
          ...(typeof d.reason === 'string' ? { reason: d.reason } : {}),
          ...(typeof d.voterClientId === 'string' ? { voterClientId: d.voterClientId } : {}),
        };
        break;
      }
      case 'plan':
        entries.push({
          ...base,
          kind: 'plan',
          entries: (Array.isArray(d.entries) ? d.entries : []).map((e) => ({
            content: str(obj(e).content),
            status: str(obj(e).status, 'pending'),
            priority: str(obj(e).priority, 'medium'),
          })),
        });
        break;
      case 'model_switch':
        entries.push(
          typeof d.modelId === 'string'
            ? { ...base, kind: 'event', title: 'Model switched', detail: d.modelId }
            : { ...base, kind: 'event', title: 'Model switch failed', detail: `${str(d.requestedModelId)}: ${str(d.error)}` },
        );
        break;
      case 'metadata':
        if (typeof d.displayName === 'string') entries.push({ ...base, kind: 'event', title: 'Renamed', detail: d.displayName });
        if (Array.isArray(d.prs)) {
          const urls = d.prs.map((p) => str(obj(p).url)).filter(Boolean);
          entries.push({ ...base, kind: 'event', title: 'Pull requests', detail: urls.join(', ') });
        }
        break;
      case 'approval_mode':
        // A session created in the default mode records that choice; only a change is worth a line.
        if (d.previous !== d.next) entries.push({ ...base, kind: 'event', title: 'Approval mode', detail: `${str(d.previous)} → ${str(d.next)}` });
        break;
      case 'compaction':
        entries.push({ ...base, kind: 'event', title: 'Context compacted', detail: `${str(d.reason)}: about ${Number(d.tokensBefore) || 0} → ${Number(d.tokensAfter) || 0} tokens, last ${Number(d.keptTurns) || 0} turns kept\n${str(d.summary)}` });
        break;
      case 'module_message':
        entries.push({ ...base, kind: 'event', title: 'Message from another tab', detail: str(d.text, JSON.stringify(d)) });
        break;
      case 'turn_end': {
        const error = d.error ? obj(d.error) : null;
        entries.push({
          ...base,
          kind: 'turn_end',
          stopReason: typeof d.stopReason === 'string' ? d.stopReason : null,
          error: error ? { message: str(error.message, 'The turn failed'), code: typeof error.code === 'string' ? error.code : null } : null,
          interrupted: d.interrupted === true,
          unstartedPrompt:
            d.started === false ? blocksText((Array.isArray(d.prompt) ? d.prompt : []).filter((b): b is Block => typeof obj(b).type === 'string')) : null,
        });
        break;
      }
      default:
        break;
    }
  }

  const lastAt = records.length > 0 ? records[records.length - 1]!.at : row.updatedAt;
  return {
    meta: {
      sessionId: row.id,
      title: row.displayName,
      startTime: iso(row.createdAt),
      lastUpdated: iso(Math.max(row.updatedAt, lastAt)),
      exportTime: iso(input.now),
      cwd: input.cwd,
      model: row.modelId,
      approvalMode: row.approvalMode,
      promptCount,
      totalTokens,
      recordCount: records.length,
      unreadableRecords: unreadable,
    },
    entries,
  };
}

/** The text of a prompt's text blocks; other blocks are named by type. */
export function blocksText(blocks: readonly Block[]): string {
  return blocks
    .map((b) => (b.type === 'text' ? str(b.text) : b.type === 'image' ? `[image ${str(b.mimeType)}]` : `[${b.type} ${str(b.uri, str(b.name))}]`.trim()))
    .join('\n\n');
}

/** A short human phrase for a permission decision. */
export function decisionText(d: PermissionDecision | null): string {
  if (d === null) return 'No decision was recorded';
  if (d.outcome === 'cancelled') return `Cancelled${d.reason ? ` (${d.reason})` : ''}`;
  const kind = d.optionKind ?? '';
  const verb = kind.startsWith('allow') ? 'Allowed' : kind.startsWith('reject') ? 'Rejected' : 'Answered';
  const scope = kind.endsWith('always') ? ' for the rest of the session' : kind.endsWith('once') ? ' once' : '';
  return `${verb}${scope}${d.label ? ` — “${d.label}”` : ''}${d.voterClientId ? ` by ${d.voterClientId}` : ''}`;
}
