import type { Command } from 'commander';
import { ConfigError } from '../config/config.js';
import { MODULE_SOCKET_ENV, MODULE_TOKEN_ENV } from '../messaging/agent-env.js';
import { ALL, KINDS } from '../messaging/types.js';
import { exchangeLine } from '../modules/client.js';
import { resolveAccess, withAccess, type AccessOptions } from './module-access.js';
import { registerMsgOwner } from './msg-owner.js';

/**
 * Asks one module-protocol question (docs/modules.md) and prints the answer: its text (the words an
 * agent is shown), or the raw line with `--json`. Exit code 0 when the answer
 * is ok, 1 when it is a refusal, so scripts can branch on it.
 */
async function ask(op: string, fields: Record<string, unknown>, opts: AccessOptions): Promise<void> {
  const { socket, token, session } = await resolveAccess(opts, 'berth msg');
  const question = { token, ...(session ? { session } : {}), op, ...fields };
  const raw = await exchangeLine(socket, JSON.stringify(question) + '\n');
  const line = raw.split('\n', 1)[0] ?? '';
  let answer: { ok?: unknown; text?: unknown };
  try {
    answer = JSON.parse(line) as { ok?: unknown; text?: unknown };
  } catch {
    throw new Error(`the daemon's answer is not one JSON line: ${JSON.stringify(raw.slice(0, 200))}`);
  }
  process.stdout.write((opts.json ? line : String(answer.text ?? '')) + '\n');
  if (answer.ok !== true) process.exitCode = 1;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\n$/, '');
}

/** `berth msg list|send|inbox|peek` over the socket, and `share|tab` over the client API (msg-owner.ts). */
export function registerMsg(program: Command): void {
  const msg = program
    .command('msg')
    .description(`Talk to the other agent tabs of a workspace over its module socket (seed 004). Reads $${MODULE_SOCKET_ENV} and $${MODULE_TOKEN_ENV}.`);
  withAccess(msg.command('list').description('Show which tab you are and the other open tabs.')).action((opts: AccessOptions) =>
    ask('list', {}, opts),
  );
  withAccess(
    msg
      .command('send')
      .description('Send a message to a tab (its number or title) or to every other tab; "-" reads the text from stdin.')
      .requiredOption('--tab <tab>', `the receiving tab's number or title, or "${ALL}"`)
      .option('--kind <kind>', `what you ask of the receiver: ${KINDS.join(', ')}`, 'info')
      .argument('<text...>', 'the message'),
  ).action(async (words: string[], opts: AccessOptions & { tab: string; kind: string }) => {
    if (!(KINDS as readonly string[]).includes(opts.kind)) throw new ConfigError(`--kind must be one of ${KINDS.join(', ')}`);
    const text = words.length === 1 && words[0] === '-' ? await readStdin() : words.join(' ');
    await ask('send', { tab: opts.tab, text, kind: opts.kind }, opts);
  });
  withAccess(msg.command('inbox').description('Take the messages waiting for you, oldest first.')).action((opts: AccessOptions) =>
    ask('inbox', {}, opts),
  );
  withAccess(msg.command('peek').description('Show the messages waiting for you without taking them.')).action((opts: AccessOptions) =>
    ask('peek', {}, opts),
  );
  registerMsgOwner(msg);
}
