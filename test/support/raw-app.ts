import { gzipSync } from 'node:zlib';
import WebSocket from 'ws';
import { CATALOG_SCHEMA } from '../../src/protocol/tools/catalog.js';
import { decodePayload } from '../../src/tools/compression.js';
import { TOOL_PROTOCOL_PATH, TOOL_SUBPROTOCOL } from '../../src/protocol/toolproto/subprotocol.js';
import type { TestDaemon } from './daemon.js';

/** One frame as the application received it (payload as sent, maybe wrapped). */
export interface Frame {
  type: string;
  id: string;
  replyTo?: string;
  sessionId?: string;
  sentAt?: string;
  capability?: string;
  payload?: any;
}

export interface RawConnectOptions {
  readonly headers?: Record<string, string>;
  readonly protocols?: readonly string[];
  /** Appended to the endpoint path as is (e.g. `?workspace=…`). */
  readonly query?: string;
  /**
   * Sees every frame from the first one. A handler added with `ws.on('message')`
   * after `connect` resolves can miss the daemon's first `tool.query`: when it
   * arrives in the same read as the upgrade answer, `ws` emits it before the
   * code after `await connect(…)` runs, so that query would go unanswered.
   */
  readonly onFrame?: (frame: Frame, app: RawApp) => void;
}

/** The daemon's answer to an upgrade it refused: status and the JSON error body. */
export interface Refusal {
  readonly status: number;
  readonly body: any;
}

export function toolsUrl(d: TestDaemon, query = ''): string {
  return `${d.url.replace(/^http/, 'ws')}${TOOL_PROTOCOL_PATH}${query}`;
}

/**
 * A raw `ws` client playing the application (seed 003): it sees every frame
 * the daemon sends, answers by hand, and can send anything at all.
 */
export class RawApp {
  readonly received: Frame[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private waiters: Array<{ match: (f: Frame) => boolean; resolve: (f: Frame) => void }> = [];
  private consumed = new Set<Frame>();

  private constructor(
    readonly ws: WebSocket,
    onFrame?: (frame: Frame, app: RawApp) => void,
  ) {
    this.closed = new Promise((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    ws.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as Frame;
      this.received.push(frame);
      onFrame?.(frame, this);
      const waiter = this.waiters.find((w) => w.match(frame));
      if (waiter) {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        this.consumed.add(frame);
        waiter.resolve(frame);
      }
    });
    ws.on('error', () => undefined);
  }

  /** Connects with `Authorization: Bearer <token>` unless headers say otherwise; rejects with a Refusal. */
  static connect(d: TestDaemon, token: string | null, options: RawConnectOptions = {}): Promise<RawApp> {
    const headers = { ...(token !== null ? { authorization: `Bearer ${token}` } : {}), ...options.headers };
    const ws = new WebSocket(toolsUrl(d, options.query), [...(options.protocols ?? [TOOL_SUBPROTOCOL])], { headers });
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new RawApp(ws, options.onFrame)));
      ws.once('unexpected-response', (_req, res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => reject({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined } satisfies Refusal));
      });
      ws.once('error', reject);
    });
  }

  /** The next frame (not yet handed out) that matches; already received ones count. */
  next(match: (f: Frame) => boolean = () => true): Promise<Frame> {
    const early = this.received.find((f) => !this.consumed.has(f) && match(f));
    if (early) {
      this.consumed.add(early);
      return Promise.resolve(early);
    }
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }

  nextOfType(type: string, where: (f: Frame) => boolean = () => true): Promise<Frame> {
    return this.next((f) => f.type === type && where(f));
  }

  /** The refusal the daemon sent for one of our frames (a `tool.error` naming it). */
  refusalOf(id: string): Promise<Frame> {
    return this.nextOfType('tool.error', (f) => f.replyTo === id);
  }

  send(frame: Record<string, unknown> | string): void {
    this.ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  answer(request: Frame, type: string, payload: unknown): void {
    this.send({ type, id: `${request.id}.response`, replyTo: request.id, sentAt: new Date().toISOString(), capability: 'tool.exec', payload });
  }

  close(): Promise<{ code: number; reason: string }> {
    this.ws.close(1000, 'test done');
    return this.closed;
  }
}

/** A definition as an application publishes it (seed 003 definitions projection). */
export interface RawTool {
  readonly id: string;
  readonly policy?: 'read' | 'write' | 'critical';
  readonly inputSchema?: Record<string, unknown>;
  /** Stands in for a real definition revision; what matters to the daemon is that it changes with the definition. */
  readonly revision?: string;
  readonly runtime?: Record<string, unknown>;
  /** More definition members as the application publishes them (`outputSchema`, `argumentEncoding`). */
  readonly extra?: Record<string, unknown>;
}

export function definitionOf(t: RawTool): Record<string, unknown> {
  return {
    id: t.id,
    name: t.id,
    description: `the ${t.id} tool`,
    category: 'test',
    policy: t.policy ?? 'read',
    inputSchema: t.inputSchema ?? { type: 'object', properties: { text: { type: 'string' } } },
    definitionRevision: t.revision ?? `sha256:${t.id}-1`,
    ...t.extra,
  };
}

export function indexAnswer(tools: readonly RawTool[], revision = 'sha256:catalog-1', availabilityRevision = 'sha256:avail-1') {
  return {
    schema: CATALOG_SCHEMA,
    revision,
    availabilityRevision,
    evaluatedAtUtc: new Date().toISOString(),
    detail: 'index',
    tools: tools.map((t) => {
      const { inputSchema: _schema, outputSchema: _output, ...entry } = definitionOf(t);
      return { ...entry, ...(t.runtime ? { runtime: t.runtime, executable: false } : {}) };
    }),
    count: tools.length,
    totalCount: tools.length,
    categories: { test: tools.length },
  };
}

export function definitionsAnswer(tools: readonly RawTool[], ids: readonly string[], revision = 'sha256:catalog-1') {
  const chosen = tools.filter((t) => ids.includes(t.id)).map(definitionOf);
  return { schema: CATALOG_SCHEMA, revision, detail: 'definitions', tools: chosen, count: chosen.length };
}

/**
 * Plays the discovery a raw app owes the daemon after connecting: answers the
 * index query and, if asked, the definitions query. Returns both queries.
 */
export async function serveCatalog(
  app: RawApp,
  tools: readonly RawTool[],
  revision = 'sha256:catalog-1',
  expectDefinitions = tools.length > 0,
): Promise<{ index: Frame; definitions?: Frame }> {
  const index = await app.nextOfType('tool.query', (f) => f.payload?.detail === 'index');
  app.answer(index, 'tool.catalog', indexAnswer(tools, revision));
  if (!expectDefinitions) return { index };
  const definitions = await app.nextOfType('tool.query', (f) => f.payload?.detail === 'definitions');
  app.answer(definitions, 'tool.catalog', definitionsAnswer(tools, definitions.payload.ids, revision));
  return { index, definitions };
}

/** A `gzip-base64-json` wrapper built by hand, as a foreign application would. */
export function wrap(payload: unknown): Record<string, unknown> {
  const json = Buffer.from(JSON.stringify(payload));
  const gz = gzipSync(json);
  return {
    $ansightEncoding: 'gzip-base64-json',
    contentType: 'application/json',
    originalByteCount: json.byteLength,
    compressedByteCount: gz.byteLength,
    data: gz.toString('base64'),
  };
}

export const unwrap = (payload: unknown) => decodePayload(payload);

/** Polls until `check` returns something truthy (no timed assertion: the test runner's timeout bounds it). */
export async function until<T>(check: () => T | undefined | false | Promise<T | undefined | false>): Promise<T> {
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** An agent's call of an application tool: `workspace_tool` through the executor, as a session makes it (permission granted). */
export function agentCall(d: TestDaemon, name: string, args: Record<string, unknown>, callId = `call-${Math.random()}`) {
  const core = d.daemon.core;
  const set = core.tools.toolSet({
    workspace: core.workspaces.primary(),
    sessionId: 'session-under-test',
    namespace: 'test',
    permission: async () => ({ allow: true }),
  });
  return set.call({ callId, name: 'workspace_tool', args: { name, arguments: args } });
}
