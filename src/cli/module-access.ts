import type { Command } from 'commander';
import { ConfigError } from '../config/config.js';
import { MODULE_SESSION_ENV, MODULE_SOCKET_ENV, MODULE_TOKEN_ENV } from '../messaging/agent-env.js';
import { joinTab } from './msg-join.js';

export interface AccessOptions {
  socket?: string;
  token?: string;
  session?: string;
  url?: string;
  json?: boolean;
}

/** The options of every `berth msg` command and `berth mcp`: where to ask and as whom (flags win over the environment). */
export function withAccess(command: Command, { json = true } = {}): Command {
  const withWho = command
    .option('--socket <path>', `the workspace module socket (default: $${MODULE_SOCKET_ENV})`)
    .option('--token <token>', `the tab's module token (default: $${MODULE_TOKEN_ENV})`)
    .option(
      '--session <id>',
      `the session a shared token speaks for (default: $${MODULE_SESSION_ENV}); without a module token, join as that session's tab through the client API`,
    )
    .option('--url <url>', 'the daemon whose client API mints a token for --session (default: $BERTH_URL or http://127.0.0.1:4170; owner token from $BERTH_TOKEN)');
  return json ? withWho.option('--json', 'print the answer line as the daemon sent it', false) : withWho;
}

/** Where to ask and as whom, from the flags, else the environment, else by joining `--session`'s tab through the client API. */
export async function resolveAccess(
  opts: AccessOptions,
  who: string,
): Promise<{ socket: string; token: string; session: string | undefined; joinedAt?: string }> {
  let socket = opts.socket ?? process.env[MODULE_SOCKET_ENV];
  let token = opts.token ?? process.env[MODULE_TOKEN_ENV];
  const session = opts.session ?? process.env[MODULE_SESSION_ENV];
  let joinedAt: string | undefined;
  if (!token && opts.session) {
    // A person at a second terminal: ask the client API for a token of that tab's own (issue 11).
    joinedAt = opts.url ?? process.env.BERTH_URL ?? 'http://127.0.0.1:4170';
    const joined = await joinTab(joinedAt, opts.session, process.env.BERTH_TOKEN);
    token = joined.token;
    socket = opts.socket ?? joined.socket;
  }
  if (!socket) throw new ConfigError(`${who} needs the module socket: --socket PATH or $${MODULE_SOCKET_ENV}`);
  if (!token) {
    throw new ConfigError(`${who} needs a module token: --token TOKEN or $${MODULE_TOKEN_ENV}, or --session ID to join as that tab through the client API`);
  }
  return { socket, token, session, ...(joinedAt ? { joinedAt } : {}) };
}
