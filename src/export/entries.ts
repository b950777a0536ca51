import { blocksText, obj, str, type Base, type Block, type Data, type ExportEntry } from './document.js';
import type { ExportRecord } from './source.js';

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

/**
 * Turns records into entries one at a time. A `tool_result` completes the
 * call entry made earlier (and a `permission_outcome` its request) and makes
 * no entry of its own; `forget` lets a streaming writer drop an entry once it
 * is written, so memory holds what is not yet written, not the whole session.
 */
export class ExportEntries {
  private readonly tools = new Map<string, Extract<ExportEntry, { kind: 'tool' }>>();
  private readonly permissions = new Map<string, Extract<ExportEntry, { kind: 'permission' }>>();

  add(r: ExportRecord): ExportEntry[] {
    const base: Base = { recordId: r.recordId, promptId: r.promptId, at: r.at };
    const d = r.data;
    const out: ExportEntry[] = [];
    if (r.unreadable) return [{ ...base, kind: 'unreadable' }];
      switch (r.kind) {
        case 'user_prompt':
        case 'mid_turn_message':
          out.push({ ...base, kind: 'user', blocks: (Array.isArray(d.content) ? d.content : []).filter((b): b is Block => typeof obj(b).type === 'string') });
          break;
        case 'agent_message':
          if (str(d.text) !== '') out.push({ ...base, kind: 'assistant', text: str(d.text) });
          break;
        case 'agent_thought':
          if (str(d.text) !== '') out.push({ ...base, kind: 'thought', text: str(d.text) });
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
          this.tools.set(entry.toolCallId, entry);
          out.push(entry);
          break;
        }
        case 'tool_result': {
          const call = this.tools.get(str(d.toolCallId));
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
          this.permissions.set(entry.requestId, entry);
          out.push(entry);
          break;
        }
        case 'permission_outcome': {
          const request = this.permissions.get(str(d.requestId));
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
          out.push({
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
          out.push(
            typeof d.modelId === 'string'
              ? { ...base, kind: 'event', title: 'Model switched', detail: d.modelId }
              : { ...base, kind: 'event', title: 'Model switch failed', detail: `${str(d.requestedModelId)}: ${str(d.error)}` },
          );
          break;
        case 'metadata':
          if (typeof d.displayName === 'string') out.push({ ...base, kind: 'event', title: 'Renamed', detail: d.displayName });
          if (Array.isArray(d.prs)) {
            const urls = d.prs.map((p) => str(obj(p).url)).filter(Boolean);
            out.push({ ...base, kind: 'event', title: 'Pull requests', detail: urls.join(', ') });
          }
          break;
        case 'approval_mode':
          // A session created in the default mode records that choice; only a change is worth a line.
          if (d.previous !== d.next) out.push({ ...base, kind: 'event', title: 'Approval mode', detail: `${str(d.previous)} → ${str(d.next)}` });
          break;
        case 'module_message':
          out.push({ ...base, kind: 'event', title: 'Message from another tab', detail: str(d.text, JSON.stringify(d)) });
          break;
        case 'compaction':
          out.push({
            ...base,
            kind: 'event',
            title: 'Context compacted',
            detail: `${str(d.reason)}: about ${Number(d.tokensBefore) || 0} → ${Number(d.tokensAfter) || 0} tokens, last ${Number(d.keptTurns) || 0} turns kept\n${str(d.summary)}`,
          });
          break;
        case 'rewind': {
          const files = Array.isArray(d.filesChanged) ? d.filesChanged.map((f) => str(f)).join(', ') : '';
          const undone = Array.isArray(d.undonePromptIds) ? d.undonePromptIds.length : 0;
          const detail = `${undone} turn(s) undone, back to turn ${Number(d.targetTurnIndex) || 0}${files ? `; files restored: ${files}` : ''}`;
          out.push({ ...base, kind: 'event', title: 'Rewound', detail });
          break;
        }
        case 'turn_end': {
          const error = d.error ? obj(d.error) : null;
          out.push({
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
    return out;
  }

  forget(e: ExportEntry): void {
    if (e.kind === 'tool') this.tools.delete(e.toolCallId);
    if (e.kind === 'permission') this.permissions.delete(e.requestId);
  }
}

