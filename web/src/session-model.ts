import type { Envelope } from './sse';

/** What the session view shows, rebuilt from transcript pages, a load's replay and the live stream. */
export interface Option {
  readonly optionId: string;
  readonly name: string;
  readonly kind?: string;
}
export type Item =
  | { kind: 'user'; key: string; text: string }
  | { kind: 'agent'; key: string; text: string }
  | { kind: 'thought'; key: string; text: string }
  | { kind: 'plan'; key: string; entries: { content: string; status: string }[] }
  | {
      kind: 'tool';
      key: string;
      title: string;
      toolKind: string;
      toolName: string;
      status: string;
      input: unknown;
      content: any[];
      output: unknown;
      startedAt: number | null;
      endedAt: number | null;
    }
  | { kind: 'permission'; key: string; requestId: string; title: string; options: Option[]; question: boolean; toolCall: any; outcome: string | null }
  | { kind: 'note'; key: string; text: string; tone: 'info' | 'error' }
  | { kind: 'rewind'; key: string; keptTurns: number; undone: number; filesChanged: string[]; filesFailed: string[] };

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

export class SessionModel {
  items: Item[] = [];
  running = false;
  /** Prompts waiting behind the running one, in order: id → text (each can be withdrawn). */
  readonly queue = new Map<string, string>();
  modelId: string | null = null;
  approvalMode: string | null = null;
  usage: { inputTokens?: number; outputTokens?: number } | null = null;
  private counter = 0;
  private readonly tools = new Map<string, Extract<Item, { kind: 'tool' }>>();
  private readonly asks = new Map<string, Extract<Item, { kind: 'permission' }>>();
  /** Prompts whose turn began (their echo was seen): a cancelled end of any other was a withdrawal. */
  private readonly begun = new Set<string>();

  private key(prefix: string): string {
    this.counter += 1;
    return `${prefix}-${this.counter}`;
  }

  /** Open permission requests and questions, oldest first (what the keyboard approves). */
  pending(): Extract<Item, { kind: 'permission' }>[] {
    return this.items.filter((i): i is Extract<Item, { kind: 'permission' }> => i.kind === 'permission' && i.outcome === null);
  }

  /** Older records (a transcript page) go before everything shown so far. */
  prepend(records: readonly Envelope[]): void {
    const later = this.items;
    this.items = [];
    for (const r of records) this.apply(r);
    this.items.push(...later);
  }

  apply(e: Envelope, at?: number): void {
    const d = e.data ?? {};
    // Replayed events carry the daemon's time, so a reload shows the same durations.
    const now = at ?? e._meta?.serverTimestamp ?? d._meta?.timestamp ?? d.update?._meta?.timestamp ?? Date.now();
    switch (e.type) {
      case 'session_update':
        if ((d.update ?? d).sessionUpdate === 'user_message_chunk' && (e.promptId ?? d.promptId)) this.begun.add(e.promptId ?? d.promptId);
        return this.update(d.update ?? d, now);
      case 'permission_request':
        return this.ask(d.requestId, d.toolCall?.title ?? d.title ?? 'Permission', d.options ?? [], d.toolCall, d.toolCall?._meta?.interactionKind === 'user_question');
      case 'permission_resolved':
      case 'permission_already_resolved': {
        const item = this.asks.get(d.requestId);
        if (item) item.outcome = d.outcome?.optionId ?? d.outcome?.outcome ?? 'resolved';
        return;
      }
      case 'pending_prompt_added':
        if (d.promptId) this.queue.set(d.promptId, d.text ?? '');
        return;
      case 'pending_prompt_started':
        this.queue.delete(d.promptId);
        this.running = true;
        return;
      case 'pending_prompt_completed':
        this.queue.delete(d.promptId);
        return;
      case 'session_rewound':
        this.items.push({
          kind: 'rewind',
          key: `rewind-${d.rewindId ?? this.key('rewind')}`,
          keptTurns: d.targetTurnIndex ?? 0,
          undone: (d.undonePromptIds ?? []).length,
          filesChanged: d.filesChanged ?? [],
          filesFailed: d.filesFailed ?? [],
        });
        return;
      case 'turn_complete':
        // A queued prompt withdrawn (docs/client-api.md §6.5) ends without ever running: the running turn goes on.
        if (d.promptId && this.queue.has(d.promptId)) {
          this.note(`Withdrawn: ${this.queue.get(d.promptId) || 'a queued prompt'}`, 'info');
          this.queue.delete(d.promptId);
          return;
        }
        this.running = false;
        // In a replay the queue is gone; a cancelled prompt that never began was withdrawn from it.
        if (d.stopReason === 'cancelled' && this.begun.size > 0 && d.promptId && !this.begun.has(d.promptId)) this.note('Withdrawn: a queued prompt', 'info');
        else if (d.stopReason && d.stopReason !== 'end_turn') this.note(`Turn ended: ${d.stopReason}`, 'info');
        return;
      case 'turn_error':
        this.running = false;
        return this.note(`Turn failed: ${d.message ?? d.code ?? 'error'}`, 'error');
      case 'model_switched':
        this.modelId = d.modelId ?? d.currentModelId ?? this.modelId;
        return this.note(`Model switched to ${this.modelId}`, 'info');
      case 'model_switch_failed':
        return this.note(`Model switch failed: ${d.message ?? d.code ?? ''}`, 'error');
      case 'session_snapshot':
        this.modelId = d.currentModelId ?? this.modelId;
        this.approvalMode = d.currentApprovalMode ?? this.approvalMode;
        return;
      case 'approval_mode_changed':
        this.approvalMode = d.next ?? d.approvalMode ?? d.mode ?? this.approvalMode;
        return;
      case 'session_closed':
        return this.note(`Session closed${d.reason ? `: ${d.reason}` : ''}`, 'info');
      default:
        return;
    }
  }

  /** A pending interaction as `GET /session/{id}/status` lists it (after a reload mid-turn). */
  restorePending(p: {
    requestId: string;
    title?: string;
    kind?: string;
    action?: any;
    questions?: unknown[];
    options?: { optionId: string; label?: string; name?: string; kind?: string }[];
  }): void {
    if (this.asks.has(p.requestId)) return;
    const question = p.kind === 'user_question';
    const toolCall = question ? { _meta: { questions: p.questions ?? [] } } : p.action;
    this.ask(p.requestId, p.action?.title ?? p.title ?? 'Permission', p.options ?? [], toolCall, question);
  }

  private ask(requestId: string, title: string, options: any[], toolCall: any, question: boolean): void {
    const existing = this.asks.get(requestId);
    if (existing) return;
    const item: Extract<Item, { kind: 'permission' }> = {
      kind: 'permission',
      key: `perm-${requestId}`,
      requestId,
      title,
      options: options.map((o) => ({ optionId: o.optionId, name: o.name ?? o.label ?? o.optionId, kind: o.kind })),
      question,
      toolCall,
      outcome: null,
    };
    this.asks.set(requestId, item);
    this.items.push(item);
  }

  private note(text: string, tone: 'info' | 'error'): void {
    this.items.push({ kind: 'note', key: this.key('note'), text, tone });
  }

  private text(kind: 'user' | 'agent' | 'thought', chunk: string): void {
    const last = this.items[this.items.length - 1];
    if (last && last.kind === kind) last.text += chunk;
    else if (chunk !== '') this.items.push({ kind, key: this.key(kind), text: chunk });
  }

  private update(u: any, now: number): void {
    const chunk = typeof u.content?.text === 'string' ? u.content.text : '';
    switch (u.sessionUpdate) {
      case 'user_message_chunk':
        // The prompt's echo opens its turn (a prompt that did not wait in the queue has no `pending_prompt_started`).
        this.running = true;
        return this.text('user', chunk);
      case 'agent_message_chunk': {
        const usage = u._meta?.usage;
        if (usage) this.usage = usage;
        return this.text('agent', chunk);
      }
      case 'agent_thought_chunk':
        return this.text('thought', chunk);
      case 'plan':
        this.items.push({ kind: 'plan', key: this.key('plan'), entries: u.entries ?? [] });
        return;
      case 'tool_call':
      case 'tool_call_update':
        return this.tool(u, now);
      default:
        return;
    }
  }

  private tool(u: any, now: number): void {
    let item = this.tools.get(u.toolCallId);
    if (!item) {
      item = {
        kind: 'tool',
        key: `tool-${u.toolCallId}`,
        title: u.title ?? u.toolCallId,
        toolKind: u.kind ?? 'other',
        toolName: u._meta?.toolName ?? '',
        status: u.status ?? 'pending',
        input: u.rawInput,
        content: [],
        output: undefined,
        startedAt: now,
        endedAt: null,
      };
      this.tools.set(u.toolCallId, item);
      this.items.push(item);
    }
    if (u.title) item.title = u.title;
    if (u.status) item.status = u.status;
    if (u.rawInput !== undefined) item.input = u.rawInput;
    if (u.rawOutput !== undefined) item.output = u.rawOutput;
    if (Array.isArray(u.content) && u.content.length > 0) item.content = u.content;
    if (TERMINAL.has(item.status) && item.endedAt === null) item.endedAt = now;
  }
}
