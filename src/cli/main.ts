import { Command, CommanderError } from 'commander';
import { pathToFileURL } from 'node:url';
import { ConfigError } from '../config/config.js';
import { registerConnect } from './connect.js';
import { registerMcp } from './mcp.js';
import { registerMsg } from './msg.js';
import { registerServe } from './serve.js';
import { registerToken } from './token.js';

/** Berth's commands, in the order `berth --help` lists them. */
const COMMANDS: ReadonlyArray<readonly [name: string, register: (program: Command) => void]> = [
  ['serve', registerServe],
  ['connect', registerConnect],
  ['token', registerToken],
  ['msg', registerMsg],
  ['mcp', registerMcp],
];

/**
 * The `berth` program. Given the command a command line names, it holds that command alone:
 * building every command's options is CPU that `berth serve` spent before its port opened.
 * Anything else (`--help`, a misspelt command) gets them all, to list or suggest.
 */
export function buildProgram(commandName?: string): Command {
  const program = new Command();
  program
    .name('berth')
    .description('Berth: a self-hosted daemon where coding agents work on projects.')
    .showHelpAfterError()
    .exitOverride();
  const named = COMMANDS.filter(([name]) => name === commandName);
  for (const [, register] of named.length > 0 ? named : COMMANDS) register(program);
  return program;
}

export async function main(argv: readonly string[]): Promise<void> {
  try {
    // argv is [node, script, command, …].
    await buildProgram(argv[2]).parseAsync([...argv]);
  } catch (err) {
    if (err instanceof CommanderError) process.exit(err.exitCode);
    if (err instanceof ConfigError) {
      process.stderr.write(`berth: ${err.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`berth: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}

// Run directly (`node --import tsx src/cli/main.ts …`) as well as through bin/berth.js.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await main(process.argv);
}
