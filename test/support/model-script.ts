import type { ScriptedModel, ScriptStep } from '../../src/devtools/scripted-model/index.js';

/** What session tests script the scripted model with, and read back from what it recorded. */

/** A model reply asking for one `workspace_write` of `content` to a new file at `path`. */
export const writeReply = (path: string, content: string): ScriptStep => ({
  kind: 'reply',
  toolCalls: [{ name: 'workspace_write', arguments: { path, content, expectedSha256: null } }],
});

/** The index, among every request the scripted model recorded, of its `n`-th chat request (0-based), once it came. */
export async function chatRequestIndex(model: ScriptedModel, n: number): Promise<number> {
  const chats = await model.waitForRequests(n + 1, '/chat/completions');
  return model.requests.indexOf(chats[n]!);
}
