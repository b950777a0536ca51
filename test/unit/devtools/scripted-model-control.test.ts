import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { spawnScriptedModel, type SpawnedScriptedModel } from '../../../src/devtools/scripted-model/index.js';

let proc: SpawnedScriptedModel;
let client: OpenAI;

before(async () => {
  proc = await spawnScriptedModel(['--models', 'one,two', '--default-text', 'from the cli']);
  client = new OpenAI({ baseURL: proc.url, apiKey: 'k', maxRetries: 0 });
});
after(() => proc.stop());

async function text(prompt: string): Promise<string> {
  let out = '';
  const stream = await client.chat.completions.create({ model: 'one', messages: [{ role: 'user', content: prompt }], stream: true });
  for await (const c of stream) out += c.choices[0]?.delta.content ?? '';
  return out;
}

describe('scripted model as a child process', () => {
  test('the CLI prints a /v1 base URL and serves its configured models and default text', async () => {
    assert.match(proc.url, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    assert.deepEqual((await client.models.list()).data.map((m) => m.id), ['one', 'two']);
    assert.equal(await text('hi'), 'from the cli');
  });

  test('steps and match rules sent over HTTP drive the answers, and requests are readable over HTTP', async () => {
    await proc.control.reset();
    await proc.control.script({
      steps: [{ kind: 'reply', text: 'scripted over http' }],
      rules: [{ lastUserContains: 'ping', step: { kind: 'reply', text: 'pong' } }],
    });
    assert.equal(await text('first'), 'scripted over http');
    assert.equal(await text('ping please'), 'pong');
    assert.equal(await text('other'), 'from the cli');
    const requests = await proc.control.requests(3, '/chat/completions');
    assert.deepEqual(
      requests.map((r) => r.body.messages[0].content),
      ['first', 'ping please', 'other'],
    );
  });

  test('a script with one bad step is refused whole and queues nothing', async () => {
    await proc.control.reset();
    await assert.rejects(
      proc.control.script({ steps: [{ kind: 'reply', text: 'good' }, { kind: 'nonsense' } as never] }),
      /steps\[1\]\.kind/,
    );
    assert.equal(await text('after refusal'), 'from the cli');
  });

  test('reset forgets the recorded requests', async () => {
    await text('something');
    await proc.control.reset();
    assert.deepEqual(await proc.control.requests(), []);
  });
});
