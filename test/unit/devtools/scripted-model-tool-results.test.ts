import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import OpenAI from 'openai';
import { startScriptedModel, type ScriptedModel } from '../../../src/devtools/scripted-model/index.js';

/**
 * Steps that read the last tool result a request carries (issue 11, the demo's
 * check from the shell): an id the daemon made up goes into the next call, and
 * a poll is asked again while the command still runs — no clock involved.
 */

let model: ScriptedModel;
let client: OpenAI;

before(async () => {
  model = await startScriptedModel({});
  client = new OpenAI({ baseURL: model.url, apiKey: 'sk-test', maxRetries: 0 });
});
after(() => model.close());
beforeEach(() => model.reset());

/** One non-streamed answer to a conversation whose last message is a tool result with `result`. */
async function afterToolResult(result: unknown) {
  const content = typeof result === 'string' ? result : JSON.stringify(result);
  const answer = await client.chat.completions.create({
    model: 'scripted-model',
    messages: [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'workspace_exec', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content },
    ],
  });
  const message = answer.choices[0]!.message;
  return { text: message.content, calls: (message.tool_calls ?? []).map((c: any) => ({ name: c.function.name, args: JSON.parse(c.function.arguments) })) };
}

const poll = {
  kind: 'reply' as const,
  text: 'polling',
  toolCalls: [{ name: 'workspace_poll', arguments: { commandId: { $fromLastToolResult: 'commandId' }, offset: 0 } }],
  repeatWhileLastToolResult: { running: true },
};

describe('scripted model steps that read the last tool result', () => {
  test('a $fromLastToolResult argument takes that field of the last tool result; other arguments stay as written', async () => {
    model.enqueue({ kind: 'reply', toolCalls: [{ name: 'workspace_poll', arguments: { commandId: { $fromLastToolResult: 'commandId' }, offset: 3 } }] });
    const r = await afterToolResult({ commandId: 'abc', running: true });
    assert.deepEqual(r.calls, [{ name: 'workspace_poll', args: { commandId: 'abc', offset: 3 } }]);
  });

  test('a field the last tool result lacks, or a result that is not JSON, becomes null', async () => {
    model.enqueue({ kind: 'reply', toolCalls: [{ name: 't', arguments: { id: { $fromLastToolResult: 'commandId' } } }] });
    assert.deepEqual((await afterToolResult('plain text')).calls[0]!.args, { id: null });
  });

  test('a step repeats while the last tool result matches, and gives way to the next step once it does not', async () => {
    model.enqueue(poll, { kind: 'reply', text: 'done' });
    assert.equal((await afterToolResult({ commandId: 'abc', running: true })).text, 'polling');
    assert.equal((await afterToolResult({ commandId: 'abc', running: true })).text, 'polling');
    assert.equal((await afterToolResult({ commandId: 'abc', running: false, output: '2 hello.txt\n' })).text, 'done');
  });

  test('a repeating step whose condition does not hold at first is skipped', async () => {
    model.enqueue(poll, { kind: 'reply', text: 'next' });
    assert.equal((await afterToolResult({ commandId: 'abc', running: false })).text, 'next');
  });
});
