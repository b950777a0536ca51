import { readFileSync, statSync } from 'node:fs';
import type { Command } from 'commander';
import { ConfigError, defaultHome } from '../config/config.js';
import { startOwner } from '../main/owner.js';
import { createLogger } from '../log.js';
import type { Policy } from '../tools/types.js';

/** Exit code when the host refused the channel for good (bad token, no such workspace, a redirect). */
const EXIT_REFUSED = 3;

interface ConnectFlags {
  workspaceId: string;
  project: string;
  intention: string;
  tokenFile?: string;
  home?: string;
  maxPolicy: string;
  approve?: string;
  logLevel: string;
  toolsListen?: string;
}

export function registerConnect(program: Command): void {
  program
    .command('connect')
    .description(
      'Dial an agent host (B) as the owner of a project (seed 000 gateway channel): B sends tool calls, this process checks and runs them on --project.',
    )
    .argument('<host-url>', "B's base URL, e.g. https://agents.example.com or http://127.0.0.1:4170 (no credentials, query or fragment)")
    .requiredOption('--workspace-id <id>', "the remote workspace's id on B (B serves it with --remote-workspace ID); a name, never a path")
    .requiredOption('--project <dir>', 'the project directory B works on; every path stays inside it')
    .requiredOption('--intention <text>', 'the launch intention B must send with every call (B: --remote-workspace ID=TEXT); others are refused')
    .option('--token-file <file>', 'a file holding the channel token (berth token create --channel on B); default: $BERTH_CHANNEL_TOKEN')
    .option('--home <dir>', "this owner's state folder: receipts of the calls it ran, project pins (default: $BERTH_HOME or ~/.berth)")
    .option('--max-policy <policy>', 'the highest tool policy B may run here: read, write or critical', 'critical')
    .option(
      '--approve <policy>',
      'run write (or write and critical) calls without asking; otherwise each asks at the terminal, and is refused when stdin is not a terminal',
    )
    .option(
      '--tools-listen <host:port>',
      'also let applications on this machine publish tools (seed 003) at ws://host:port/api/tools/v1/connect; loopback only, port 0 picks one; tokens: berth token create --app NAME --home <this home>',
    )
    .option('--log-level <level>', 'trace, debug, info, warn, error or silent', 'warn')
    .action(async (hostUrl: string, flags: ConnectFlags) => {
      const maxPolicy = policyFlag('--max-policy', flags.maxPolicy, ['read', 'write', 'critical']);
      const approve = flags.approve === undefined ? null : (policyFlag('--approve', flags.approve, ['write', 'critical']) as 'write' | 'critical');
      const statusLine = (line: string) => `berth connect: ${line}\n`;
      const status = (line: string) => process.stderr.write(statusLine(line));
      const owner = await startOwner({
        hostUrl,
        workspaceId: flags.workspaceId,
        project: flags.project,
        intention: flags.intention,
        token: readToken(flags.tokenFile, status),
        home: flags.home ?? defaultHome(),
        maxPolicy,
        approve,
        terminal: process.stdin.isTTY ? { input: process.stdin, output: process.stderr } : null,
        status,
        // One write for the lines of many calls.
        statusLines: (lines) => process.stderr.write(lines.map(statusLine).join('')),
        log: createLogger(flags.logLevel),
        ...(flags.toolsListen !== undefined ? { toolsListen: listenFlag(flags.toolsListen) } : {}),
      });
      let signals = 0;
      const onSignal = () => {
        signals += 1;
        if (signals > 1) process.exit(130);
        status('stopping: letting running calls record their results');
        void owner.stop().then(() => process.exit(0));
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      const refused = await owner.finished;
      if (refused) {
        status(refused.message);
        await owner.stop();
        process.exit(EXIT_REFUSED);
      }
    });
}

function policyFlag(name: string, value: string, allowed: readonly Policy[]): Policy {
  if (!(allowed as readonly string[]).includes(value)) throw new ConfigError(`${name} takes ${allowed.join(', ')}; got ${value}`);
  return value as Policy;
}

/** `--tools-listen host:port` (`[::1]:port` for IPv6); the address must be loopback, checked when it binds. */
function listenFlag(value: string): { hostname: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(value);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new ConfigError(`--tools-listen takes host:port, e.g. 127.0.0.1:4171; got ${value}`);
  return { hostname: (m[1] ?? m[2])!, port };
}

/** The channel token from `--token-file` or `BERTH_CHANNEL_TOKEN`; it never appears in a URL, a flag or a log. */
function readToken(file: string | undefined, status: (line: string) => void): string {
  let token: string | undefined;
  if (file !== undefined) {
    try {
      token = readFileSync(file, 'utf8').trim();
    } catch {
      throw new ConfigError(`--token-file ${file} cannot be read`);
    }
    if ((statSync(file).mode & 0o077) !== 0) status(`warning: ${file} is readable by other users; chmod 600 it`);
  } else {
    token = process.env.BERTH_CHANNEL_TOKEN?.trim();
  }
  if (!token) throw new ConfigError('a channel token is needed: --token-file FILE or BERTH_CHANNEL_TOKEN');
  if (/\s/.test(token)) throw new ConfigError('the channel token must be one word');
  return token;
}
