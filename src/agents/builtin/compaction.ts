import type OpenAI from 'openai';
import { PLAN_TOOL_NAME } from './plan-tool.js';

type Message = OpenAI.Chat.ChatCompletionMessageParam;

/** The last user turns (each with every call and result after it) are kept verbatim. */
export const KEPT_TURNS = 2;
/** Before a model has counted: JSON characters over four (the usual English average). */
const CHARS_PER_TOKEN = 4;
/** The older part is quoted to the summariser up to this many characters (its newest end kept). */
const MAX_SUMMARY_INPUT_CHARS = 400_000;

export const SUMMARY_PROMPT = [
  'You compress the earlier part of a coding session so the work can continue in a smaller context.',
  'Write a summary that keeps: the user’s goals and constraints, decisions made and why, what was done to which files,',
  'commands run and what they showed, errors met and how they were resolved, and what was still open.',
  'Be specific (names, paths, values); omit pleasantries. Answer with the summary only.',
].join(' ');

/**
 * JSON characters of each message and tool definition, kept per object. The
 * gauge measures every model request twice (before and after), and
 * stringifying the whole history and tool list each time was a turn's largest
 * cost of Berth's own; a history only grows, and a message is not changed
 * once it is in a conversation (conversation.ts pushes or replaces whole).
 */
const charsOf = new WeakMap<object, number>();

function jsonChars(value: unknown): number {
  if (typeof value !== 'object' || value === null) return (JSON.stringify(value) ?? 'null').length;
  let chars = charsOf.get(value);
  if (chars === undefined) {
    chars = JSON.stringify(value).length;
    charsOf.set(value, chars);
  }
  return chars;
}

/** `JSON.stringify(items).length`, from the cached lengths of the items: brackets and commas added. */
function arrayChars(items: readonly unknown[]): number {
  let chars = 2 + Math.max(0, items.length - 1);
  for (const item of items) chars += jsonChars(item);
  return chars;
}

function requestChars(messages: readonly Message[], tools: readonly unknown[]): number {
  return arrayChars(messages) + arrayChars(tools);
}

/**
 * The tokens a request would take, by the model's own count: each answered
 * request's reported prompt tokens over the characters it sent give the ratio
 * for the next one (code, other languages and tokenizers differ widely from
 * four characters a token). Until a model reports usage, characters over four.
 */
export class ContextGauge {
  private tokensPerChar = 1 / CHARS_PER_TOKEN;

  /** The model answered a request of `messages` and `tools` and counted `promptTokens` for it. */
  measured(messages: readonly Message[], tools: readonly unknown[], promptTokens: number): void {
    const chars = requestChars(messages, tools);
    if (chars > 0 && Number.isFinite(promptTokens) && promptTokens > 0) this.tokensPerChar = promptTokens / chars;
  }

  tokens(messages: readonly Message[], tools: readonly unknown[] = []): number {
    return Math.ceil(requestChars(messages, tools) * this.tokensPerChar);
  }
}

/**
 * Where the kept tail starts: the index of the `keptTurns`-th user message from the end
 * (a tool result never starts the tail, so no call is split from its result), or null
 * when there is nothing older than the tail to compact.
 */
export function tailStart(messages: readonly Message[], keptTurns: number): number | null {
  let seen = 0;
  for (let i = messages.length - 1; i > 0; i--) {
    if (messages[i]!.role === 'user' && !isSummary(messages[i]!)) {
      seen++;
      if (seen === keptTurns) return i > firstAfterSummary(messages) ? i : null;
    }
  }
  return null;
}

const SUMMARY_HEADER = '[Summary of the earlier conversation, made by Berth when the context filled up]';

function isSummary(m: Message): boolean {
  return m.role === 'user' && typeof m.content === 'string' && m.content.startsWith(SUMMARY_HEADER);
}

/** The first message after the system prompt and any earlier summary. */
function firstAfterSummary(messages: readonly Message[]): number {
  return messages[1] && isSummary(messages[1]) ? 2 : 1;
}

/** The older part as text for the summariser: one line per message, tool calls with their arguments. */
export function transcriptText(older: readonly Message[]): string {
  const lines = older.map((m) => {
    const text = typeof m.content === 'string' ? m.content : Array.isArray(m.content) ? m.content.map((p) => ('text' in p ? p.text : `[${p.type}]`)).join(' ') : '';
    const calls = m.role === 'assistant' && m.tool_calls ? m.tool_calls.map((c) => ('function' in c ? ` → ${c.function.name}(${c.function.arguments})` : '')).join('') : '';
    return `${m.role}: ${text ?? ''}${calls}`;
  });
  const all = lines.join('\n');
  return all.length <= MAX_SUMMARY_INPUT_CHARS ? all : all.slice(all.length - MAX_SUMMARY_INPUT_CHARS);
}

const PLAN_PREFIX = 'Plan (last update_plan): ';
const FILES_PREFIX = 'Files touched: ';

/** What Berth carries verbatim past a compaction, whatever the summary says: the last plan and every file touched. */
export function carriedFacts(older: readonly Message[]): string {
  let plan: string | undefined;
  const files = new Set<string>();
  for (const m of older) {
    if (isSummary(m)) {
      // An earlier compaction's facts stay carried: its plan until a newer one, its files always.
      for (const line of String(m.content).split('\n')) {
        if (line.startsWith(PLAN_PREFIX)) plan = line.slice(PLAN_PREFIX.length);
        if (line.startsWith(FILES_PREFIX)) for (const f of line.slice(FILES_PREFIX.length).split(', ')) files.add(f);
      }
      continue;
    }
    if (m.role !== 'assistant' || !m.tool_calls) continue;
    for (const c of m.tool_calls) {
      if (!('function' in c)) continue;
      if (c.function.name === PLAN_TOOL_NAME) plan = c.function.arguments;
      try {
        const args = JSON.parse(c.function.arguments) as { path?: unknown };
        if (typeof args.path === 'string') files.add(args.path);
      } catch {
        // Arguments the model garbled name no file.
      }
    }
  }
  return [plan ? `${PLAN_PREFIX}${plan}` : '', files.size > 0 ? `${FILES_PREFIX}${[...files].join(', ')}` : ''].filter(Boolean).join('\n');
}

/**
 * The messages after a compaction: the system prompt, one user message with the summary
 * (and the facts carried verbatim, including an earlier summary's), then the kept tail as it
 * was. The same function rebuilds the context on load, so live and restored contexts match.
 */
export function compacted(messages: readonly Message[], summary: string, keptTurns: number): Message[] | null {
  const start = tailStart(messages, keptTurns);
  if (start === null) return null;
  const older = messages.slice(1, start);
  const facts = carriedFacts(older);
  const content = [SUMMARY_HEADER, summary, facts].filter(Boolean).join('\n\n');
  return [messages[0]!, { role: 'user', content }, ...messages.slice(start)];
}

/** The older part (what a summary replaces), or null when there is none. */
export function olderPart(messages: readonly Message[], keptTurns: number): Message[] | null {
  const start = tailStart(messages, keptTurns);
  return start === null ? null : messages.slice(1, start);
}

/** A model error that says the request was longer than its context ("context length exceeded" and its variants). */
export function isContextOverflow(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const details = (err as { details?: Record<string, unknown> }).details ?? {};
  const text = `${err.message} ${String(details.code ?? '')} ${String(details.type ?? '')}`;
  return /context[_ ]length[_ ]exceeded|maximum context length|context window|too many tokens|prompt is too long/i.test(text);
}
