import type { IncomingHttpHeaders } from 'node:http';
import { lastToolResultOf } from './completion.js';
import { DEFAULT_REPLY, type MatchRule, type ScriptStep, parseStep } from './steps.js';

/** One request as the server received it, kept so tests can assert what the daemon sent. */
export interface RecordedRequest {
  /** 0-based arrival order. */
  readonly index: number;
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The parsed JSON body (null when there was none; the raw text when it was not JSON). */
  readonly body: any;
  /** True once the client closed the connection before the answer was finished (e.g. an aborted turn). */
  readonly clientClosedEarly: boolean;
  /** True when a `disconnect` step cut the connection on purpose. */
  readonly serverDisconnected: boolean;
}

type MutableRecord = { -readonly [K in keyof RecordedRequest]: RecordedRequest[K] };

/** What a rule function sees of a chat request. */
export interface ChatRequestView {
  readonly body: Record<string, any>;
  /** The text of the last `user` message (text parts joined), or '' when there is none. */
  readonly lastUserText: string;
  readonly request: RecordedRequest;
}

export type ScriptRule = (request: ChatRequestView) => ScriptStep | undefined;

const DEFAULT_MODELS = ['scripted-model'];

/** Joins the text of an OpenAI message `content` (a string or an array of parts). */
export function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p) => (p && typeof p === 'object' && p.type === 'text' ? String(p.text ?? '') : '')).join('');
}

export function lastUserText(body: Record<string, any>): string {
  const messages: unknown[] = Array.isArray(body.messages) ? body.messages : [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as Record<string, unknown> | null;
    if (m && m.role === 'user') return messageText(m.content);
  }
  return '';
}

function flatHeaders(h: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/**
 * The mutable half of the scripted model: the queue, the rules, the default,
 * the model list and the request log, plus waiters woken on every change.
 */
export class ScriptState {
  private queue: ScriptStep[] = [];
  private rule: ScriptRule | null = null;
  private matchRules: readonly MatchRule[] = [];
  private fallback: ScriptStep;
  private modelIds: readonly string[];
  private log: MutableRecord[] = [];
  private waiters = new Set<() => void>();

  constructor(
    private readonly initialDefault: ScriptStep = DEFAULT_REPLY,
    private readonly initialModels: readonly string[] = DEFAULT_MODELS,
    private readonly keepLog = true,
  ) {
    this.fallback = initialDefault;
    this.modelIds = initialModels;
  }

  get requests(): readonly RecordedRequest[] {
    return this.log;
  }

  get models(): readonly string[] {
    return this.modelIds;
  }

  queued(): number {
    return this.queue.length;
  }

  enqueue(steps: readonly ScriptStep[]): void {
    // Checked whole before any is queued: a wrong shape (say, an array passed as one step)
    // would otherwise make a turn wait for an answer that never comes.
    const checked = steps.map((step, i) => parseStep(step, `step ${i}`));
    this.queue.push(...checked);
  }

  setRule(rule: ScriptRule | null): void {
    this.rule = rule;
  }

  setMatchRules(rules: readonly MatchRule[]): void {
    this.matchRules = rules;
  }

  setDefault(step: ScriptStep): void {
    this.fallback = step;
  }

  setModels(ids: readonly string[]): void {
    this.modelIds = [...ids];
  }

  reset(): void {
    this.queue = [];
    this.rule = null;
    this.matchRules = [];
    this.fallback = this.initialDefault;
    this.modelIds = this.initialModels;
    this.log = [];
    this.wake();
  }

  /** The queue first, then the rule function, then the declarative rules, then the default. */
  next(body: Record<string, any>, request: RecordedRequest): ScriptStep {
    for (let head = this.queue[0]; head !== undefined; head = this.queue[0]) {
      const repeatWhile = head.kind === 'reply' ? head.repeatWhileLastToolResult : undefined;
      if (repeatWhile === undefined) return this.queue.shift()!;
      const last = lastToolResultOf(body);
      if (last !== null && Object.entries(repeatWhile).every(([k, v]) => last[k] === v)) return head;
      this.queue.shift();
    }
    if (this.rule === null && this.matchRules.length === 0) return this.fallback;
    const text = lastUserText(body);
    const chosen = this.rule?.({ body, lastUserText: text, request });
    if (chosen) return chosen;
    return this.matchRules.find((r) => text.includes(r.lastUserContains))?.step ?? this.fallback;
  }

  record(method: string, path: string, headers: IncomingHttpHeaders, body: unknown): MutableRecord {
    const rec: MutableRecord = {
      index: this.log.length,
      method,
      path,
      headers: flatHeaders(headers),
      body,
      clientClosedEarly: false,
      serverDisconnected: false,
    };
    if (this.keepLog) {
      this.log.push(rec);
      this.wake();
    }
    return rec;
  }

  markClientClosed(rec: RecordedRequest): void {
    (rec as MutableRecord).clientClosedEarly = true;
    this.wake();
  }

  markServerDisconnected(rec: RecordedRequest): void {
    (rec as MutableRecord).serverDisconnected = true;
  }

  matching(pathSuffix?: string): RecordedRequest[] {
    return pathSuffix === undefined ? [...this.log] : this.log.filter((r) => r.path.endsWith(pathSuffix));
  }

  waitForRequests(n: number, pathSuffix?: string, signal?: AbortSignal): Promise<RecordedRequest[]> {
    return this.waitFor(() => {
      const found = this.matching(pathSuffix);
      return found.length >= n ? found : undefined;
    }, signal);
  }

  waitForClientClose(index: number, signal?: AbortSignal): Promise<RecordedRequest> {
    return this.waitFor(() => {
      const rec = this.log[index];
      return rec?.clientClosedEarly ? rec : undefined;
    }, signal);
  }

  /** Wakes every waiter (and lets close() release them) without rejecting anyone. */
  dispose(): void {
    this.wake();
  }

  private waitFor<T>(check: () => T | undefined, signal?: AbortSignal): Promise<T> {
    const now = check();
    if (now !== undefined) return Promise.resolve(now);
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        this.waiters.delete(poll);
        reject(signal?.reason ?? new Error('wait aborted'));
      };
      const poll = () => {
        const value = check();
        if (value === undefined) return;
        this.waiters.delete(poll);
        signal?.removeEventListener('abort', onAbort);
        resolve(value);
      };
      this.waiters.add(poll);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }
}
