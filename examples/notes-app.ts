/**
 * A small application that publishes its tools to a Berth daemon (issue 7):
 * a notes list with a read tool and a write tool. Agents find them through
 * `workspace_tools` and call them through `workspace_tool`; adding a note
 * asks the owner first, since it is a `write` tool.
 *
 *   npx berth token create --app notes --max-policy write --out notes.token
 *   node --import tsx examples/notes-app.ts --url http://127.0.0.1:4170 --token-file notes.token
 *
 * The token comes from --token-file or $BERTH_APP_TOKEN, never from the
 * command line, where every local user could read it in the process list.
 * Options: --workspace <id or absolute root> binds to a workspace other than
 * the primary one. It prints "notes app connected" once connected and runs
 * until SIGINT/SIGTERM or the daemon goes away.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { connect, type AppToolSpec } from '../src/app/index.js';

interface Note {
  readonly id: number;
  readonly text: string;
}

export function notesTools(notes: Note[] = []): AppToolSpec[] {
  return [
    {
      id: 'notes.list',
      name: 'List notes',
      description: 'List the notes, newest last; `contains` keeps only notes whose text includes it.',
      category: 'notes',
      policy: 'read',
      inputSchema: {
        type: 'object',
        properties: { contains: { type: 'string', maxLength: 200 } },
        additionalProperties: false,
      },
      handler: ({ contains }) => ({
        notes: typeof contains === 'string' ? notes.filter((n) => n.text.includes(contains)) : notes,
      }),
    },
    {
      id: 'notes.add',
      name: 'Add a note',
      description: 'Add one note and return it with its id.',
      category: 'notes',
      policy: 'write',
      inputSchema: {
        type: 'object',
        properties: { text: { type: 'string', minLength: 1, maxLength: 1000 } },
        required: ['text'],
        additionalProperties: false,
      },
      handler: ({ text }) => {
        const note = { id: notes.length + 1, text: String(text) };
        notes.push(note);
        return { added: note, count: notes.length };
      },
    },
  ];
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { url: { type: 'string' }, 'token-file': { type: 'string' }, token: { type: 'string' }, workspace: { type: 'string' } },
  });
  if (values.token !== undefined) {
    process.stderr.write('notes-app: a token on the command line is visible to every local user; pass --token-file FILE or set BERTH_APP_TOKEN\n');
    process.exit(2);
  }
  const token = values['token-file'] !== undefined ? readFileSync(values['token-file'], 'utf8').trim() : process.env.BERTH_APP_TOKEN?.trim();
  if (!values.url || !token) {
    process.stderr.write('usage: notes-app --url http://127.0.0.1:4170 (--token-file FILE | $BERTH_APP_TOKEN) [--workspace <id or root>]\n');
    process.exit(2);
  }
  const app = await connect(values.url, token, {
    tools: notesTools(),
    ...(values.workspace ? { workspace: values.workspace } : {}),
    onNotice: (notice) => process.stderr.write(`berth: ${notice.code}: ${notice.message}\n`),
  });
  process.stdout.write('notes app connected\n');
  const stop = () => void app.close(1000, 'notes app stopping');
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const { code } = await app.closed;
  process.exit(code === 1000 || code === 1001 ? 0 : 1);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
