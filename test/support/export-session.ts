import { createHash } from 'node:crypto';
import type { TestDaemon } from './daemon.js';
import { runTurn } from './history.js';
import { EventReader, newSession, optionOf, select, submit } from './session-client.js';
import type { Stack } from './stack.js';

/** The project file the session's second tool call asks to delete (the owner says no). */
export const EXPORT_FIXTURE = { 'README.md': '# project\n' };

/** Text a reader must see as text: markup in it must never become markup in an export. */
export const HOSTILE_PROMPT = 'Fix <script>window.__pwned = 1</script> and </pre><img src=x onerror="window.__pwned=2"> please';

/**
 * A closed session with everything an export shows: a prompt with markup in
 * it, a collapsed-worthy thought, a write the owner allowed, a delete the
 * owner rejected, answers, and a failed turn. The workspace must hold
 * EXPORT_FIXTURE. Runs over real HTTP in `default`
 * approval mode, so both permission decisions are real votes.
 */
export async function sessionForExport(stack: Stack): Promise<{ sessionId: string }> {
  const d: TestDaemon = stack.daemon;
  const { sessionId, clientId } = await newSession(d, { approvalMode: 'default' });
  const headers = { 'x-qwen-client-id': clientId };
  stack.model.enqueue(
    {
      kind: 'reply',
      reasoning: 'The user wants a greeting file; I should write it first.',
      text: 'I will write greeting.txt.',
      toolCalls: [{ id: 'call_write', name: 'workspace_write', arguments: { path: 'greeting.txt', content: 'hello <b>world</b>\n', expectedSha256: null } }],
    },
    {
      kind: 'reply',
      text: 'Now I will remove README.md.',
      toolCalls: [
        {
          id: 'call_delete',
          name: 'workspace_delete',
          arguments: { path: 'README.md', expectedSha256: createHash('sha256').update(EXPORT_FIXTURE['README.md']).digest('hex') },
        },
      ],
    },
    { kind: 'reply', text: 'Wrote greeting.txt; the owner kept README.md.' },
  );
  const stream = await EventReader.open(d, sessionId);
  const accepted = await submit(d, sessionId, HOSTILE_PROMPT, {}, headers);
  const allow = await stream.type('permission_request');
  await d.json('POST', `/session/${sessionId}/permission/${allow.data.requestId}`, select(optionOf(allow, 'allow_once')), headers);
  const reject = await stream.type('permission_request', (e) => e.data.requestId !== allow.data.requestId);
  await d.json('POST', `/session/${sessionId}/permission/${reject.data.requestId}`, select(optionOf(reject, 'reject_once')), headers);
  await stream.terminal(accepted.body.promptId);
  stream.close();
  // A 4xx: the built-in agent retries a 429/5xx, and this turn is meant to fail.
  stack.model.enqueue({ kind: 'error', status: 400, message: 'the model service fell over' });
  await runTurn(d, sessionId, 'Try once more', clientId);
  await d.json('DELETE', `/session/${sessionId}`, undefined, headers);
  return { sessionId };
}
