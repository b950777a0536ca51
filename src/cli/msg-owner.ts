import type { Command } from 'commander';
import { ConfigError } from '../config/config.js';

/** Where the owner's commands find the daemon when no flag says: `$BERTH_URL`, else the default `berth serve` address. */
const URL_ENV = 'BERTH_URL';
const DEFAULT_URL = 'http://127.0.0.1:4170';

interface OwnerOptions {
  url?: string;
  ownerToken?: string;
  json?: boolean;
}

/** The client-API options of the owner's `berth msg` commands. */
function withOwner(command: Command): Command {
  return command
    .option('--url <url>', `the daemon's address (default: $${URL_ENV} or ${DEFAULT_URL})`)
    .option('--owner-token <token>', "the daemon's owner token for the client API (default: $BERTH_TOKEN)")
    .option('--json', 'print the answer body as the daemon sent it', false);
}

/**
 * One client-API request as the owner. Prints `render(body)` (or the body
 * with `--json`); a refusal prints its message to stderr and exits 1.
 */
async function request(method: string, path: string, body: unknown, opts: OwnerOptions, render: (body: any) => string): Promise<void> {
  const base = opts.url ?? process.env[URL_ENV] ?? DEFAULT_URL;
  let url: URL;
  try {
    url = new URL(path, base);
  } catch {
    throw new ConfigError(`--url must be the daemon's address, like ${DEFAULT_URL}`);
  }
  const token = opts.ownerToken ?? process.env.BERTH_TOKEN;
  const response = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let answer: any;
  try {
    answer = JSON.parse(text);
  } catch {
    throw new Error(`the daemon answered ${response.status} without a JSON body`);
  }
  if (!response.ok) {
    process.stderr.write(`berth: ${answer.code ?? response.status}: ${answer.error ?? answer.message ?? text}\n`);
    process.exitCode = 1;
    return;
  }
  process.stdout.write((opts.json ? JSON.stringify(answer) : render(answer)) + '\n');
}

/**
 * The owner's side of `berth msg`, over the client API rather than the
 * socket: a token shared by several tabs (its questions name the tab with
 * `--session`), and how a tab reads its messages and whether it reaches the
 * network.
 */
export function registerMsgOwner(msg: Command): void {
  withOwner(
    msg
      .command('share')
      .description('Issue one module token for several tabs of a workspace (the tabs\' earlier tokens stop working). Prints only the token.')
      .argument('<session-id...>', 'the sessions the token speaks for'),
  ).action((sessionIds: string[], opts: OwnerOptions) => request('POST', '/module/token', { sessionIds }, opts, (body) => body.token));

  withOwner(
    msg
      .command('tab')
      .description("Set how a tab's messages reach its agent and whether it reaches the network; prints the tab.")
      .argument('<session-id>', "the tab's session")
      .option('--delivery <mode>', 'prompt: offered as its next prompt when idle; inbox: kept until it asks')
      .option('--network', 'the tab reaches the network')
      .option('--no-network', 'the tab does not reach the network (it may then not send to tabs that do)'),
  ).action((sessionId: string, opts: OwnerOptions & { delivery?: string; network?: boolean }) => {
    if (opts.delivery !== undefined && opts.delivery !== 'prompt' && opts.delivery !== 'inbox') {
      throw new ConfigError('--delivery must be prompt or inbox');
    }
    if (opts.delivery === undefined && opts.network === undefined) throw new ConfigError('berth msg tab needs --delivery, --network or --no-network');
    const body = { ...(opts.delivery !== undefined ? { delivery: opts.delivery } : {}), ...(opts.network !== undefined ? { network: opts.network } : {}) };
    return request('PATCH', `/session/${encodeURIComponent(sessionId)}/module`, body, opts, (tab) =>
      `tab ${tab.tab}: ${tab.delivery === 'inbox' ? 'reads its inbox' : 'takes messages as prompts'}, ${tab.network ? 'network' : 'no network'}`,
    );
  });
}
