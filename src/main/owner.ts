import { systemClock, type Clock } from '../clock.js';
import { GATEWAY_SHUTDOWN_GRACE_MS } from '../gateway/limits.js';
import { DEFAULT_FRAME_BYTES } from '../protocol/limits.js';
import type { Logger } from '../log.js';
import { openStore } from '../store/db.js';
import { sqliteRepositories } from './repositories.js';
import { TokenService } from '../tokens/tokens.js';
import { startApplicationListener } from '../toolproto/listener.js';
import { CommandManager, localWorkspaceTools } from '../tools/builtin/index.js';
import { CommandConfinement } from '../tools/builtin/commands/confinement.js';
import { machineSandbox } from '../tools/builtin/commands/sandbox.js';
import { openReceiptJournal } from '../tools/receipt-journal.js';
import { ToolService } from '../tools/service.js';
import { loadHomeMcpServers, type McpServerSpec } from '../config/mcp-servers.js';
import { McpHub } from '../mcp/hub.js';
import { mcpLaunch } from './mcp-launch.js';
import type { Policy } from '../tools/types.js';
import { OwnerApproval, shortId } from '../gateway/owner/approval.js';
import { OwnerCallHandler, type CallReport } from '../gateway/owner/call-handler.js';
import { channelUrl } from '../gateway/owner/channel-url.js';
import { ChannelRefused, OwnerConnection } from '../gateway/owner/connection.js';
import { pinProject } from '../gateway/owner/pin.js';
import { TerminalPrompter } from '../gateway/owner/terminal.js';

export { ChannelRefused } from '../gateway/owner/connection.js';

export interface OwnerOptions {
  /** B's base URL (`http(s)://` or `ws(s)://`, optionally with a path prefix). */
  readonly hostUrl: string;
  readonly workspaceId: string;
  readonly project: string;
  readonly intention: string;
  readonly token: string;
  /** The owner's own state folder: its receipts and project pins. */
  readonly home: string;
  readonly maxPolicy: Policy;
  readonly approve: Exclude<Policy, 'read'> | null;
  /** The owner's terminal, or null when unattended. */
  readonly terminal: { readonly input: NodeJS.ReadableStream; readonly output: NodeJS.WritableStream } | null;
  /** One status line for the owner (stderr in the CLI). */
  readonly status: (line: string) => void;
  /** Several status lines at once: the per-call lines, gathered for a moment (deferred-reports.ts). `status` for each, unless given. */
  readonly statusLines?: (lines: readonly string[]) => void;
  readonly log: Logger;
  readonly clock?: Clock;
  /** Reconnect backoff bounds; the named defaults otherwise. */
  readonly reconnect?: { readonly baseMs: number; readonly maxMs: number };
  /**
   * Where applications on this machine connect (docs/tool-protocol.md, `--tools-listen`): their tools join this
   * owner's workspace and answer B's `workspace_tools` / `workspace_tool`. Tokens: `berth token create --app … --home <this home>`.
   */
  readonly toolsListen?: { readonly hostname: string; readonly port: number };
  /**
   * The largest frame on the channel and on the application listener; the protocol's default
   * (docs/gateway.md) unless given. One value for every socket this owner opens.
   */
  readonly maxFrameBytes?: number;
}

export interface RunningOwner {
  /** Resolves when dialling ends: null after stop(), the refusal when the host refused for good. */
  readonly finished: Promise<ChannelRefused | null>;
  /** Closes the channel, lets running calls record their results (bounded), then releases everything; idempotent. */
  stop(): Promise<void>;
}

/** The MCP servers of the owner's own config; a broken file is reported and none of it is started. */
function ownerMcpServers(options: OwnerOptions): McpServerSpec[] {
  try {
    return loadHomeMcpServers(options.home);
  } catch (err) {
    options.status(`MCP servers not started: ${(err as Error).message}`);
    return [];
  }
}

/**
 * `berth connect`, the workspace owner A of docs/gateway.md: pins the project and
 * intention, then dials B and answers its calls with the local workspace
 * tools, its own receipts, guard and approval.
 */
export async function startOwner(options: OwnerOptions): Promise<RunningOwner> {
  const url = channelUrl(options.hostUrl, options.workspaceId);
  const clock = options.clock ?? systemClock;
  const maxFrameBytes = options.maxFrameBytes ?? DEFAULT_FRAME_BYTES;
  const store = openStore(options.home);
  const repos = sqliteRepositories(store.db);
  let pin;
  try {
    pin = await pinProject(repos.meta, options.workspaceId, options.project, options.intention);
  } catch (err) {
    store.close();
    throw err;
  }
  // B's agent runs these commands on A's machine: the same confinement as a daemon's own (issue 16).
  const confinement = new CommandConfinement({
    sandbox: machineSandbox,
    home: options.home,
    workspaces: [{ id: pin.workspace.id, root: pin.workspace.root }],
    settings: {},
  });
  const report = confinement.report();
  if (report.sandbox === null) options.log.warn({ reason: report.reason }, 'commands run without a sandbox');
  const commands = new CommandManager({ clock, confinement });
  const tools = new ToolService({ journal: await openReceiptJournal(repos.receipts, clock.now()), clock });
  const localTools = localWorkspaceTools({ commands });
  tools.setHostTools('local', () => localTools);
  // The owner's MCP servers (its home config and the project's .berth/mcp.json) answer B's
  // workspace_tools / workspace_tool: B's agent uses them, and never sees their configuration.
  const mcp = new McpHub({ registry: tools.applications, homeServers: ownerMcpServers(options), log: options.log, launchFor: mcpLaunch(confinement) });
  void mcp.ready(pin.workspace).then(() => {
    const servers = mcp.servers(pin.workspace.id);
    if (servers.length > 0) options.status(`MCP servers: ${servers.join(', ')}`);
  });
  const applications = options.toolsListen
    ? startApplicationListener({
        ...options.toolsListen,
        registry: tools.applications,
        workspaceId: pin.workspace.id,
        tokens: new TokenService(repos.tokens, null),
        clock,
        log: options.log,
        maxFrameBytes,
      }).then(
        (listener) => (options.status(`applications connect at ${listener.url}`), listener),
        (err: Error) => (options.status(`cannot listen for applications: ${err.message}`), null),
      )
    : null;
  const terminal = options.terminal ? new TerminalPrompter(options.terminal.input, options.terminal.output) : null;
  const statusLines = options.statusLines ?? ((lines: readonly string[]) => lines.forEach((line) => options.status(line)));
  const handler = new OwnerCallHandler({
    pin,
    tools,
    maxPolicy: options.maxPolicy,
    approval: new OwnerApproval({ approve: options.approve, terminal }),
    maxFrameBytes,
    report: (reports: readonly CallReport[]) => statusLines(reports.map((r) => `${r.tool} · session ${shortId(r.sessionId)} · ${r.outcome}`)),
  });
  // The lines of calls settled before come first.
  const status = (line: string) => {
    handler.flushReports();
    options.status(line);
  };

  const shutdown = new AbortController();
  const running = new Set<Promise<unknown>>();
  const connection = new OwnerConnection({
    url,
    token: options.token,
    maxFrameBytes,
    onCall: (frame) => {
      const call = handler.handle(frame, shutdown.signal);
      running.add(call);
      void call.finally(() => running.delete(call));
      return call;
    },
    onRefused: (refused) => handler.refusal(refused.callId, refused.sessionId, refused),
    status,
    log: options.log,
    ...(options.reconnect ? { reconnect: options.reconnect } : {}),
  });
  options.status(`serving ${pin.workspace.displayName} as workspace ${pin.workspace.id} to ${new URL(url).host}`);

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await connection.stop();
      terminal?.close();
      // Calls already running finish and record their results, so B's re-send gets them from the receipts.
      if (running.size > 0) {
        let timer: NodeJS.Timeout | undefined;
        const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, GATEWAY_SHUTDOWN_GRACE_MS)));
        await Promise.race([Promise.allSettled([...running]), grace]);
        clearTimeout(timer);
      }
      shutdown.abort();
      await Promise.allSettled([...running]);
      handler.flushReports();
      await commands.dispose();
      await mcp.shutdown();
      await (await applications)?.close();
      store.close();
    })());
  return { finished: connection.finished, stop };
}
