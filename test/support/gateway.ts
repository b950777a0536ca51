import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { DaemonClient, type DaemonEvent } from '@qwen-code/sdk/daemon';
import WebSocket from 'ws';
import type { ScriptedModel, ScriptedToolCall } from '../../src/devtools/scripted-model/index.js';
import type { ConfigInput } from '../../src/config/config.js';
import { spawnBerth, type TestDaemon } from './daemon.js';
import { startStack, type Stack } from './stack.js';
import { removeDir, tempDir } from './tmp.js';

/**
 * Two real daemons for the gateway channel (seed 000): B is `berth serve` in
 * this process with a remote workspace and the scripted model; A is
 * `berth connect` spawned as a real process on a temp project.
 */

export const WORKSPACE_ID = 'proj-a';
export const INTENTION = 'fix the parser';

export interface GatewayHost {
  readonly stack: Stack;
  readonly b: TestDaemon;
  readonly workspaceId: string;
  readonly intention: string;
  close(): Promise<void>;
}

export async function startGatewayHost(config: ConfigInput = {}, workspaceId = WORKSPACE_ID, intention = INTENTION): Promise<GatewayHost> {
  const stack = await startStack({
    config: { remoteWorkspaces: [workspaceId], remoteIntentions: { [workspaceId]: intention }, ...config },
  });
  return { stack, b: stack.daemon, workspaceId, intention, close: () => stack.close() };
}

/** A fresh channel token for `workspaceId`, minted by B's own token service. */
export async function channelToken(b: TestDaemon, workspaceId = WORKSPACE_ID): Promise<string> {
  return (await b.daemon.core.tokens.createChannelToken(workspaceId)).token;
}

/** B's deep-health gateway counters. */
export async function gatewayCounters(b: TestDaemon): Promise<{ gatewayChannels: number; gatewayCallsInFlight: number; gatewayCallsWaiting: number }> {
  const r = await b.json('GET', '/health?deep=1');
  return r.body;
}

/** Polls B until `check` holds (no timer assertion: a condition that never comes fails through the test timeout). */
export async function until<T>(check: () => Promise<T | undefined | false> | T | undefined | false, everyMs = 10): Promise<T> {
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export interface OwnerProcess {
  readonly child: ChildProcess;
  readonly home: string;
  stderr(): string;
  /** Resolves once stderr holds at least `count` lines matching `pattern`; rejects after `timeoutMs` (60 s, above the longest reconnect backoff) or when A exits first. */
  waitForLines(pattern: RegExp, count?: number, timeoutMs?: number): Promise<string[]>;
  readonly exited: Promise<number | null>;
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface OwnerSpawn {
  readonly url: string;
  readonly token: string;
  readonly project: string;
  readonly home: string;
  readonly workspaceId?: string;
  readonly intention?: string;
  readonly args?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
}

/** `berth connect` as a child process; the token travels in a 0600 file under its home. */
export function spawnOwner(o: OwnerSpawn): OwnerProcess {
  const tokenFile = join(o.home, 'channel.token');
  writeFileSync(tokenFile, o.token + '\n', { mode: 0o600 });
  const child = spawnBerth(
    [
      'connect',
      o.url,
      '--workspace-id',
      o.workspaceId ?? WORKSPACE_ID,
      '--project',
      o.project,
      '--intention',
      o.intention ?? INTENTION,
      '--token-file',
      tokenFile,
      '--home',
      o.home,
      ...(o.args ?? []),
    ],
    o.env,
  );
  let err = '';
  const waiters = new Set<() => void>();
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
    for (const w of [...waiters]) w();
  });
  child.stdout!.resume();
  const exited = new Promise<number | null>((r) => child.once('exit', (code, signal) => r(code ?? (signal ? 128 : null))));
  return {
    child,
    home: o.home,
    stderr: () => err,
    waitForLines(pattern, count = 1, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        // A line that never comes fails the test with what A did print, rather than hanging it.
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no ${count}× ${pattern} from berth connect within ${timeoutMs} ms:\n${err}`));
        }, timeoutMs);
        const check = () => {
          const lines = err.split('\n').filter((l) => pattern.test(l));
          if (lines.length >= count) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(lines);
          }
        };
        waiters.add(check);
        void exited.then((code) => {
          if (waiters.has(check)) {
            waiters.delete(check);
            clearTimeout(timer);
            reject(new Error(`berth connect exited (${code}) before ${count}× ${pattern}:\n${err}`));
          }
        });
        check();
      });
    },
    exited,
    async kill(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

export interface TempOwnerDirs {
  readonly project: string;
  readonly home: string;
  remove(): void;
}

export function ownerDirs(files: Record<string, string> = {}): TempOwnerDirs {
  const project = tempDir('berth-owner-project-');
  const home = tempDir('berth-owner-home-');
  for (const [rel, text] of Object.entries(files)) writeFileSync(join(project, rel), text);
  return {
    project,
    home,
    remove() {
      removeDir(project);
      removeDir(home);
    },
  };
}

/** B, A's temp project and home, and A (`berth connect --approve critical`) dialled in and ready. */
export interface ConnectedOwner {
  readonly host: GatewayHost;
  readonly dirs: TempOwnerDirs;
  readonly owner: OwnerProcess;
}

/** Starts B and a connected A on a project holding `files` before the suite, and stops both after it. */
export function connectedOwnerPerSuite(files: Record<string, string>, use: (pair: ConnectedOwner) => void, config: ConfigInput = {}): void {
  let pair: Partial<ConnectedOwner> = {};
  before(async () => {
    const host = await startGatewayHost(config);
    const dirs = ownerDirs(files);
    pair = { host, dirs };
    const owner = spawnOwner({ url: host.b.url, token: await channelToken(host.b), project: dirs.project, home: dirs.home, args: ['--approve', 'critical'] });
    pair = { host, dirs, owner };
    await owner.waitForLines(/channel ready/);
    use(pair as ConnectedOwner);
  });
  after(async () => {
    await pair.owner?.kill();
    await pair.host?.close();
    pair.dirs?.remove();
  });
}

/** A session on B's remote workspace (`cwd` = the workspace id, spec §5.1). */
export async function remoteSession(b: TestDaemon, workspaceId = WORKSPACE_ID, approvalMode = 'yolo'): Promise<string> {
  const r = await b.json('POST', '/session', { cwd: workspaceId, sessionScope: 'thread', approvalMode });
  if (r.status !== 200) throw new Error(`POST /session: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.sessionId;
}

/** A tool message the model received after its last prompt. */
export interface SeenResult {
  readonly id: string;
  readonly content: string;
  /** The content parsed as JSON when it is JSON. */
  readonly json: any;
}

/** Per prompt text: the next tool calls, given the tool results the model has seen since that prompt; null ends the turn. */
export type TurnPlans = Map<string, (seen: SeenResult[]) => ScriptedToolCall[] | null>;

/**
 * Scripts the model per prompt: `plans[prompt]` is called with the tool results
 * the model has seen since that prompt and returns the next tool calls, or
 * null to end the turn with a short answer.
 */
export function scriptPlans(model: ScriptedModel, plans: TurnPlans): void {
  model.setRule(({ body }) => {
    const messages: any[] = body.messages ?? [];
    let at = messages.length - 1;
    while (at >= 0 && !(messages[at].role === 'user' && !String(textOf(messages[at].content)).startsWith('Images returned'))) at--;
    const prompt = at >= 0 ? textOf(messages[at].content) : '';
    const plan = plans.get(prompt);
    if (!plan) return undefined;
    const seen = messages
      .slice(at + 1)
      .filter((m) => m.role === 'tool')
      .map((m) => ({ id: m.tool_call_id, content: String(m.content), json: parseJson(String(m.content)) }));
    const calls = plan(seen);
    return calls && calls.length > 0 ? { kind: 'reply', toolCalls: calls } : { kind: 'reply', text: 'done' };
  });
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p: any) => (p?.type === 'text' ? String(p.text) : '')).join('');
  return '';
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** One settled tool call as B's clients saw it (`tool_call_update` with a final status). */
export interface ToolCallSeen {
  readonly toolCallId: string;
  readonly tool: string;
  readonly status: 'completed' | 'failed';
  readonly rawOutput: any;
  /** The error code of a failed call. */
  readonly code: string | undefined;
}

/** Submits a prompt on B and reads the session's events (replayed from the start) until that prompt's terminal event. */
export async function runTurn(b: TestDaemon, sessionId: string, prompt: string): Promise<{ terminal: DaemonEvent; calls: ToolCallSeen[]; events: DaemonEvent[] }> {
  const accepted = await b.json('POST', `/session/${sessionId}/prompt`, { prompt: [{ type: 'text', text: prompt }] });
  if (accepted.status !== 202) throw new Error(`prompt: ${accepted.status} ${JSON.stringify(accepted.body)}`);
  const promptId: string = accepted.body.promptId;
  const client = new DaemonClient({ baseUrl: b.url });
  const controller = new AbortController();
  const events: DaemonEvent[] = [];
  let terminal: DaemonEvent | undefined;
  try {
    for await (const e of client.subscribeEvents(sessionId, { signal: controller.signal, lastEventId: 0 })) {
      events.push(e);
      const data = e.data as any;
      if ((e.type === 'turn_complete' || e.type === 'turn_error') && data?.promptId === promptId) {
        terminal = e;
        break;
      }
    }
  } finally {
    controller.abort();
  }
  if (!terminal) throw new Error('the event stream ended before the turn did');
  return { terminal, calls: settledCalls(events, promptId), events };
}

export function settledCalls(events: readonly DaemonEvent[], promptId?: string): ToolCallSeen[] {
  const out: ToolCallSeen[] = [];
  for (const e of events) {
    const d = e.data as any;
    if (e.type !== 'session_update' || (promptId && (e as any).promptId !== undefined && (e as any).promptId !== promptId)) continue;
    const u = d?.update;
    if (u?.sessionUpdate !== 'tool_call_update' || (u.status !== 'completed' && u.status !== 'failed')) continue;
    out.push({
      toolCallId: u.toolCallId,
      tool: u._meta?.toolName,
      status: u.status,
      rawOutput: u.rawOutput,
      code: u.status === 'failed' ? u.rawOutput?.error?.code : undefined,
    });
  }
  return out;
}

/** A WebSocket client playing A by hand, for limit and protocol tests. */
export interface RawChannel {
  readonly ws: WebSocket;
  /** Every call frame received, in arrival order. */
  readonly calls: any[];
  /** Resolves with the `n`-th call frame (1-based) once it has arrived. */
  call(n: number): Promise<any>;
  answer(call: any, result: unknown): void;
  readonly closed: Promise<{ code: number; reason: string }>;
  close(): Promise<void>;
}

export type Dialled = { readonly ok: true; readonly channel: RawChannel } | { readonly ok: false; readonly status: number; readonly body: any; readonly headers: Record<string, unknown> };

/** Dials B's channel endpoint; resolves once `ready` arrived, or with the refusal. */
export function dialChannel(baseUrl: string, path: string, headers: Record<string, string>): Promise<Dialled> {
  const ws = new WebSocket(baseUrl.replace(/^http/, 'ws') + path, { headers, followRedirects: false });
  const calls: any[] = [];
  const waiters = new Set<() => void>();
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  return new Promise((resolve, reject) => {
    ws.on('unexpected-response', (_req, res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => {
        ws.terminate();
        resolve({ ok: false, status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined, headers: res.headers });
      });
    });
    ws.on('error', (err) => reject(err));
    ws.on('message', (data) => {
      const frame = JSON.parse(data.toString());
      if (frame.type === 'ready') {
        resolve({
          ok: true,
          channel: {
            ws,
            calls,
            call: (n) =>
              new Promise((res) => {
                const check = () => {
                  if (calls.length >= n) {
                    waiters.delete(check);
                    res(calls[n - 1]);
                  }
                };
                waiters.add(check);
                check();
              }),
            answer: (call, result) =>
              ws.send(JSON.stringify({ type: 'result', id: call.id, sessionId: call.sessionId, result: JSON.stringify(result) })),
            closed,
            async close() {
              if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.close(1000);
              await closed;
            },
          },
        });
        return;
      }
      calls.push(frame);
      for (const w of [...waiters]) w();
    });
  });
}

export const channelPathFor = (workspaceId = WORKSPACE_ID) => `/api/ai-gateway/v1/workspaces/${workspaceId}/channel`;
