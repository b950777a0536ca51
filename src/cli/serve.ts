import type { Command } from 'commander';
import { ConfigError, resolveConfig, type ConfigInput } from '../config/config.js';
import { parseRateLimits, parseRemoteWorkspace } from '../config/flag-parsers.js';
import { startDaemon } from '../main/daemon.js';
import { forgetTokenEnv, ownerTokenFrom } from './owner-token.js';
import { startupSummary } from './startup-summary.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];
const integer = (name: string) => (value: string) => {
  if (!/^\d+$/.test(value)) throw new ConfigError(`${name} takes a non-negative integer, got ${value}`);
  return Number(value);
};

/** `--remote-workspace ID[=INTENTION]` values → the ids and the intentions given. */
function remoteWorkspaceInput(values: string[] | undefined): Pick<ConfigInput, 'remoteWorkspaces' | 'remoteIntentions'> {
  if (!values) return {};
  const parsed = values.map(parseRemoteWorkspace);
  const intentions: Record<string, string> = {};
  for (const p of parsed) if (p.intention !== undefined) intentions[p.id] = p.intention;
  return { remoteWorkspaces: parsed.map((p) => p.id), remoteIntentions: intentions };
}

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('Start the daemon: the client API (REST + SSE) and every other face, on one port.')
    .addHelpText(
      'after',
      [
        '',
        'Model services: the built-in agent talks to any OpenAI-compatible endpoint. Set OPENAI_BASE_URL,',
        'OPENAI_API_KEY and OPENAI_MODEL, or list modelServices in config.json under the home folder',
        '(~/.berth/config.json by default). `npm run demo` shows a whole turn without either.',
        '',
        'Environment: BERTH_TOKEN (the owner token), BERTH_HOME (the home folder), BERTH_STORE_URL (a PostgreSQL store), BERTH_BUS_URL (a NATS bus), BERTH_NODE_ID and BERTH_LEASE_MS (cluster mode), BERTH_LOG_LEVEL.',
      ].join('\n'),
    )
    .option('--port <port>', 'TCP port to listen on (0 picks a free one)', integer('--port'), 4170)
    .option('--hostname <host>', 'address to bind; anything but loopback requires a token', '127.0.0.1')
    .option('--token-file <file>', 'a file holding the owner bearer token for the client API (default: $BERTH_TOKEN)')
    .option('--token <token>', 'the owner token itself (deprecated: every local user can read a command line; use --token-file)')
    .option('--require-auth', 'require the token for /health too (with a token, every other route already needs it)', false)
    .option(
      '--workspace <dir>',
      'a project directory to serve; repeat for more; the first is primary (default: the current directory)',
      collect,
    )
    .option(
      '--allow-workspace-root <dir>',
      'let a session register any directory under DIR as a workspace the first time its cwd names it; repeatable (default: none, only --workspace directories are served)',
      collect,
    )
    .option(
      '--remote-workspace <id[=intention]>',
      'a workspace whose owner dials in over a gateway channel (berth connect), with the launch intention sent on every call (default: the id); repeatable',
      collect,
    )
    .option('--home <dir>', 'state folder for the store, sockets and model config (default: $BERTH_HOME or ~/.berth)')
    .option('--store <url>', 'keep sessions, transcripts and receipts in PostgreSQL, postgres://user@host:port/database (default: $BERTH_STORE_URL, else SQLite in the home folder)')
    .option('--bus <url>', 'share events and requests with the other nodes of a PostgreSQL store over NATS, nats://host:port (default: $BERTH_BUS_URL, else none)')
    .option('--node-id <id>', 'run as one node of several sharing the PostgreSQL store: sessions are owned per node through leases (default: $BERTH_NODE_ID; docs/cluster-leases.md)')
    .option('--lease-ms <ms>', 'how long a node holds a session without renewing its lease (default: $BERTH_LEASE_MS, else 10000)', integer('--lease-ms'))
    .option(
      '--allow-origin <origin>',
      'a browser Origin allowed to call the API (* for any); repeatable. Requests from any other Origin are refused',
      collect,
    )
    .option('--no-web', 'keep / as a short page saying what this daemon is and where to go, even once a web app is built in')
    .option('--max-sessions <n>', 'live sessions allowed at once (default: unlimited)', integer('--max-sessions'))
    .option(
      '--max-pending-prompts-per-session <n>',
      'prompts admitted but not finished, per session (default 5)',
      integer('--max-pending-prompts-per-session'),
    )
    .option('--rate-limit <tiers>', 'request rate limits, e.g. prompt=10/60s,default=600/60s', parseRateLimits)
    .option('--prompt-deadline-ms <ms>', 'longest a prompt may run before turn_error prompt_deadline_exceeded', integer('--prompt-deadline-ms'))
    .option('--event-ring-size <n>', 'events kept per session for replay (default 8000)', integer('--event-ring-size'))
    .option('--permission-timeout-ms <ms>', 'resolve unanswered permission requests after this long', integer('--permission-timeout-ms'))
    .option('--permission-timeout-outcome <outcome>', 'what a timed-out permission request resolves to: reject, allow or cancel')
    .option('--session-idle-timeout-ms <ms>', 'close sessions with no client and no work after this long; 0 never', integer('--session-idle-timeout-ms'))
    .option('--session-reap-interval-ms <ms>', 'how often idle sessions are looked for', integer('--session-reap-interval-ms'))
    .option('--max-turn-iterations <n>', 'model round trips the built-in agent may take in one turn', integer('--max-turn-iterations'))
    .option('--max-channels <n>', 'gateway channels open at once (default 20)', integer('--max-channels'))
    .option('--max-channels-per-token <n>', 'gateway channels per channel token (default 4)', integer('--max-channels-per-token'))
    .option('--max-inflight-calls <n>', 'gateway calls in flight per workspace (default 4)', integer('--max-inflight-calls'))
    .option('--channel-wait-ms <ms>', 'how long a remote tool call waits for a channel', integer('--channel-wait-ms'))
    .option('--agent <id>', 'the external ACP agent sessions run by default (an agents entry of config.json, or a preset: qwen, gemini, claude-code, codex, opencode); default: the built-in agent')
    .option('--agent-command <command>', 'the command that starts the --agent agent (default: its preset or config.json command, looked up on PATH)')
    .option('--agent-start-timeout-ms <ms>', 'how long an agent may take to start before POST /session answers 504 init_timeout (default 30000)', integer('--agent-start-timeout-ms'))
    .option('--agent-memory-mb <mb>', 'resident memory all agent processes may use; past it new agent sessions are refused with 503 (default: no budget)', integer('--agent-memory-mb'))
    .option('--agent-idle-ms <ms>', 'a session this long without a turn leaves its agent process, which stops when none is left (default 600000)', integer('--agent-idle-ms'))
    .option('--agent-max-message-bytes <n>', 'the longest line an agent may send; a longer one stops its process (default 16777216)', integer('--agent-max-message-bytes'))
    .option('--log-level <level>', 'trace, debug, info, warn, error or silent (default: $BERTH_LOG_LEVEL or info)')
    .action(async (opts: Record<string, unknown>) => {
      const owner = ownerTokenFrom({ token: opts.token as string | undefined, tokenFile: opts.tokenFile as string | undefined });
      for (const warning of owner.warnings) process.stderr.write(`berth: warning: ${warning}\n`);
      const input: ConfigInput = {
        port: opts.port as number,
        hostname: opts.hostname as string,
        token: owner.token,
        requireAuth: opts.requireAuth as boolean,
        workspaces: opts.workspace as string[] | undefined,
        allowWorkspaceRoots: opts.allowWorkspaceRoot as string[] | undefined,
        web: opts.web as boolean,
        ...remoteWorkspaceInput(opts.remoteWorkspace as string[] | undefined),
        home: opts.home as string | undefined,
        storeUrl: opts.store as string | undefined,
        busUrl: opts.bus as string | undefined,
        nodeId: opts.nodeId as string | undefined,
        leaseMs: opts.leaseMs as number | undefined,
        allowOrigins: opts.allowOrigin as string[] | undefined,
        maxSessions: opts.maxSessions as number | undefined,
        maxPendingPromptsPerSession: opts.maxPendingPromptsPerSession as number | undefined,
        rateLimits: opts.rateLimit as ConfigInput['rateLimits'],
        promptDeadlineMs: opts.promptDeadlineMs as number | undefined,
        eventRingSize: opts.eventRingSize as number | undefined,
        permissionTimeoutMs: opts.permissionTimeoutMs as number | undefined,
        permissionTimeoutOutcome: opts.permissionTimeoutOutcome as ConfigInput['permissionTimeoutOutcome'],
        sessionIdleTimeoutMs: opts.sessionIdleTimeoutMs as number | undefined,
        sessionReapIntervalMs: opts.sessionReapIntervalMs as number | undefined,
        maxTurnIterations: opts.maxTurnIterations as number | undefined,
        maxChannels: opts.maxChannels as number | undefined,
        maxChannelsPerToken: opts.maxChannelsPerToken as number | undefined,
        maxInflightCallsPerWorkspace: opts.maxInflightCalls as number | undefined,
        channelWaitMs: opts.channelWaitMs as number | undefined,
        logLevel: opts.logLevel as string | undefined,
        agentFlags: {
          ...(opts.agent !== undefined && { agent: opts.agent as string }),
          ...(opts.agentCommand !== undefined && { agentCommand: opts.agentCommand as string }),
          ...(opts.agentStartTimeoutMs !== undefined && { startTimeoutMs: opts.agentStartTimeoutMs as number }),
          ...(opts.agentMemoryMb !== undefined && { memoryMb: opts.agentMemoryMb as number }),
          ...(opts.agentIdleMs !== undefined && { idleMs: opts.agentIdleMs as number }),
          ...(opts.agentMaxMessageBytes !== undefined && { maxMessageBytes: opts.agentMaxMessageBytes as number }),
        },
      };
      const config = resolveConfig(input);
      // Read once; commands and agents the daemon starts must not inherit it (issue 16).
      forgetTokenEnv();
      const daemon = await startDaemon({ config });
      // Last resort: a promise nobody awaited must not take every session down with it.
      process.on('unhandledRejection', (err) => daemon.core.log.error({ err }, 'unhandled rejection'));
      // A line a script can wait for; the structured log carries the same on stderr.
      process.stdout.write(`berth listening on ${daemon.url}\n`);
      process.stdout.write(startupSummary(config.modelServices, config.home) + '\n');
      let signals = 0;
      const stop = (signal: NodeJS.Signals) => {
        signals += 1;
        if (signals > 1) process.exit(130);
        daemon.core.log.info({ signal }, 'shutting down');
        void daemon.close().then(() => process.exit(0));
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
}
