import { Command, CommanderError } from 'commander';
import { pathToFileURL } from 'node:url';
import { ConfigError } from '../config/config.js';
import { registerConnect } from './connect.js';
import { registerMcp } from './mcp.js';
import { registerMsg } from './msg.js';
import { registerServe } from './serve.js';
import { registerToken } from './token.js';

export function buildProgram(): Command {
  const program = new Command();
  program
    .name('berth')
    .description('Berth: a self-hosted daemon where coding agents work on projects.')
    .showHelpAfterError()
    .exitOverride();
  registerServe(program);
  registerConnect(program);
  registerToken(program);
  registerMsg(program);
  registerMcp(program);
  return program;
}

export async function main(argv: readonly string[]): Promise<void> {
  try {
    await buildProgram().parseAsync([...argv]);
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
