import { ExportEntries } from './entries.js';
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

export interface Base {
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

export type Data = Record<string, unknown>;
export const obj = (v: unknown): Data => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Data) : {});
export const str = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback);
const iso = (ms: number) => new Date(ms).toISOString();

/** What the export header says of the whole transcript, gathered in one pass before any entry is written. */
export interface ExportSummary {
  promptCount: number;
  totalTokens: number;
  recordCount: number;
  unreadable: number;
  lastAt: number | null;
}

export const emptySummary = (): ExportSummary => ({ promptCount: 0, totalTokens: 0, recordCount: 0, unreadable: 0, lastAt: null });

export function summarize(sum: ExportSummary, r: ExportRecord): void {
  sum.recordCount += 1;
  sum.lastAt = r.at;
  if (r.unreadable) sum.unreadable += 1;
  else if (r.kind === 'user_prompt') sum.promptCount += 1;
  else if (r.kind === 'agent_message') sum.totalTokens += Number(obj(r.data.usage).totalTokens) || 0;
}

export function exportMeta(row: ExportSession, cwd: string | null, now: number, sum: ExportSummary): ExportMeta {
  return {
    sessionId: row.id,
    title: row.displayName,
    startTime: iso(row.createdAt),
    lastUpdated: iso(Math.max(row.updatedAt, sum.lastAt ?? row.updatedAt)),
    exportTime: iso(now),
    cwd,
    model: row.modelId,
    approvalMode: row.approvalMode,
    promptCount: sum.promptCount,
    totalTokens: sum.totalTokens,
    recordCount: sum.recordCount,
    unreadableRecords: sum.unreadable,
  };
}

/** The whole document in memory: for small sessions and tests; the route streams (src/export/stream.ts). */
export function buildExportDocument(input: {
  readonly row: ExportSession;
  readonly records: readonly ExportRecord[];
  readonly cwd: string | null;
  readonly now: number;
}): ExportDocument {
  const sum = emptySummary();
  const builder = new ExportEntries();
  const entries: ExportEntry[] = [];
  for (const r of input.records) {
    summarize(sum, r);
    entries.push(...builder.add(r));
  }
  return { meta: exportMeta(input.row, input.cwd, input.now, sum), entries };
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
