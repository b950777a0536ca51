/**
 * Shapes of wire events, for comparing Berth with the `qwen serve`
 * recordings by field names rather than values.
 */

export type Envelope = {
  id?: number;
  v: number;
  type: string;
  data: any;
  promptId?: string;
  originatorClientId?: string;
  _meta?: Record<string, unknown>;
};

/**
 * The kind of an event at the granularity the comparison needs: one
 * `session_update` variant differs from another, a usage record from a text
 * chunk, a cancelled turn from a finished one.
 */
export function signature(e: Envelope): string {
  switch (e.type) {
    case 'session_update': {
      const u = e.data?.update ?? {};
      let s = `session_update/${u.sessionUpdate}`;
      if (u.sessionUpdate === 'agent_message_chunk' && u._meta?.usage) s += '+usage';
      if (u.sessionUpdate === 'tool_call_update') s += `/${u.status}`;
      return s;
    }
    case 'turn_complete':
      return `turn_complete/${e.data?.stopReason}`;
    case 'replay_complete':
      return e.data?.replayedCount === 0 ? 'replay_complete/caught-up' : 'replay_complete';
    case 'prompt_cancelled':
      return e.promptId === undefined ? 'prompt_cancelled/idle' : 'prompt_cancelled';
    default:
      return e.type;
  }
}

/** Fields whose values are tool- or model-specific: their presence is compared, their insides are not. */
const OPAQUE = new Set(['rawInput', 'rawOutput', 'availableCommands', 'availableSkills']);

/** Every field path in a value: `a`, `a.b`, `a[]`, `a[].b`. */
export function fieldPaths(value: unknown, prefix = '', out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) {
    for (const item of value) fieldPaths(item, `${prefix}[]`, out);
    return out;
  }
  if (value === null || typeof value !== 'object') return out;
  for (const [key, v] of Object.entries(value)) {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    out.add(path);
    if (!OPAQUE.has(key)) fieldPaths(v, path, out);
  }
  return out;
}

/** Signature → the union of the field paths of its events (envelope and data). */
export function shapes(events: readonly Envelope[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const e of events) {
    const sig = signature(e);
    const set = out.get(sig) ?? new Set<string>();
    fieldPaths(e, '', set);
    out.set(sig, set);
  }
  return out;
}

/** One SSE frame as its lines: `[field, value]` with `:` as the field of a comment. */
export type SseFrame = [field: string, value: string][];

/** Splits raw SSE text into frames (blank-line separated) and lines (`field: value`). */
export function parseSseText(raw: string): SseFrame[] {
  return raw
    .split('\n\n')
    .filter((block) => block !== '')
    .map((block) =>
      block.split('\n').map((line): [string, string] => {
        if (line.startsWith(':')) return [':', line.slice(1).trimStart()];
        const colon = line.indexOf(':');
        return [line.slice(0, colon), line.slice(colon + 1).replace(/^ /, '')];
      }),
    );
}

/** The line layout of a frame, e.g. `id,event,data`. */
export const layoutOf = (frame: SseFrame) => frame.map(([field]) => field).join(',');

/** The envelopes of the data lines of parsed frames. */
export const envelopesOf = (frames: readonly SseFrame[]): Envelope[] =>
  frames.flatMap((f) => f.filter(([field]) => field === 'data').map(([, value]) => JSON.parse(value) as Envelope));

type Reasons = Record<string, string>;

/** Deliberate differences from a reference, each with its reason. */
export interface Differences {
  /** Event kinds only the reference sends. */
  readonly qwenOnly: Reasons;
  /** Event kinds only Berth sends. */
  readonly berthOnly: Reasons;
  /** Per event kind: field paths the reference has and Berth lacks. */
  readonly missing: Record<string, Reasons>;
  /** Per event kind: field paths Berth adds. */
  readonly extra: Record<string, Reasons>;
}

/**
 * Compares observed events with recorded ones by kind and field paths, and
 * keeps which allow-list entries were needed, so a test can also show that
 * none is stale.
 */
export class ShapeComparison {
  private readonly used = new Set<string>();

  constructor(private readonly allowed: Differences) {}

  /** The differences the allow-list does not explain, as readable lines (empty when the shapes conform). */
  unexplained(recorded: readonly Envelope[], observed: readonly Envelope[]): string[] {
    const q = shapes(recorded);
    const b = shapes(observed);
    const out: string[] = [];
    const kind = (table: 'qwenOnly' | 'berthOnly', sig: string, line: string) => {
      if (this.allowed[table][sig] === undefined) out.push(line);
      else this.used.add(`${table} ${sig}`);
    };
    const field = (table: 'missing' | 'extra', sig: string, path: string, line: string) => {
      if (this.allowed[table][sig]?.[path] === undefined) out.push(line);
      else this.used.add(`${table} ${sig} ${path}`);
    };
    for (const sig of q.keys()) if (!b.has(sig)) kind('qwenOnly', sig, `qwen sends ${sig}, Berth does not`);
    for (const sig of b.keys()) if (!q.has(sig)) kind('berthOnly', sig, `Berth sends ${sig}, qwen does not`);
    for (const [sig, qPaths] of q) {
      const bPaths = b.get(sig);
      if (!bPaths) continue;
      for (const p of qPaths) if (!bPaths.has(p)) field('missing', sig, p, `${sig}: Berth lacks ${p}`);
      for (const p of bPaths) if (!qPaths.has(p)) field('extra', sig, p, `${sig}: Berth adds ${p}`);
    }
    return out;
  }

  /** Allow-list entries no comparison so far has needed. */
  stale(): string[] {
    const all = [
      ...Object.keys(this.allowed.qwenOnly).map((s) => `qwenOnly ${s}`),
      ...Object.keys(this.allowed.berthOnly).map((s) => `berthOnly ${s}`),
      ...(['missing', 'extra'] as const).flatMap((t) =>
        Object.entries(this.allowed[t]).flatMap(([sig, paths]) => Object.keys(paths).map((p) => `${t} ${sig} ${p}`)),
      ),
    ];
    return all.filter((entry) => !this.used.has(entry));
  }
}
