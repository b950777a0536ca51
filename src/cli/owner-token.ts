import { readFileSync, statSync } from 'node:fs';
import { ConfigError } from '../config/config.js';

/** Where `berth serve` found its owner token. */
export interface OwnerTokenSource {
  /** The token given by flag or file; undefined leaves `BERTH_TOKEN` (or none) to the configuration. */
  readonly token: string | undefined;
  /** Sentences to say at start-up (on stderr), e.g. that `--token` showed the token to every local user. */
  readonly warnings: readonly string[];
}

const TOKEN_FILE_MAX_BYTES = 4096;

/**
 * The owner token never stays on the command line: `/proc/PID/cmdline` is
 * readable by every local user (`ps`), and by every command the daemon runs
 * (issue 16). `--token-file FILE` and `BERTH_TOKEN` keep it off it.
 *
 * `--token TOKEN` is kept working, because scripts and the docs of earlier
 * releases name it, but it warns: the token was visible until start-up, and
 * the process title is overwritten at once so that it stops being visible.
 */
export function ownerTokenFrom(opts: { token?: string; tokenFile?: string }): OwnerTokenSource {
  if (opts.token !== undefined && opts.tokenFile !== undefined) {
    throw new ConfigError('give the owner token once: --token-file or --token, not both');
  }
  if (opts.tokenFile !== undefined) return { token: readTokenFile(opts.tokenFile), warnings: [] };
  if (opts.token === undefined) return { token: undefined, warnings: [] };
  scrubCommandLine();
  return {
    token: opts.token,
    warnings: [
      '--token puts the owner token on the command line, where every local user could read it until start-up; use --token-file FILE or BERTH_TOKEN',
    ],
  };
}

function readTokenFile(path: string): string {
  let text: string;
  try {
    if (statSync(path).size > TOKEN_FILE_MAX_BYTES) throw new ConfigError(`--token-file ${path} is larger than ${TOKEN_FILE_MAX_BYTES} bytes`);
    text = readFileSync(path, 'utf8').trim();
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new ConfigError(`--token-file ${path} cannot be read: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  if (text === '' || /\s/.test(text)) throw new ConfigError(`--token-file ${path} must hold one token on one line`);
  return text;
}

/**
 * Overwrites the process's argument area (libuv writes the new title over the
 * whole of it), so `/proc/PID/cmdline` shows `berth serve` and no token.
 */
function scrubCommandLine(): void {
  process.title = 'berth serve';
}

/** Forgets `BERTH_TOKEN` once read, so no child process (agent, command) inherits it from `process.env`. */
export function forgetTokenEnv(env: NodeJS.ProcessEnv = process.env): void {
  delete env.BERTH_TOKEN;
}
