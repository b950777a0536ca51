import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { refusedWith, toolFixture, type ToolFixture } from './fixture.js';

describe('workspace_ask', () => {
  let f: ToolFixture;
  before(() => {
    f = toolFixture({});
  });
  after(() => f.close());

  it('puts the question to the owner through the context and returns the answer', async () => {
    const asked: unknown[] = [];
    const r = await f.call(
      'workspace_ask',
      { question: 'Which port?' },
      {
        answer: async (q) => {
          asked.push(q);
          return '8080';
        },
      },
    );
    assert.deepEqual(r, { answer: '8080' });
    assert.equal(asked.length, 1);
    assert.equal((asked[0] as { question: string }).question, 'Which port?');
    assert.match((asked[0] as { callId: string }).callId, /^call-/);
  });

  it('passes the refusal of an unanswered question through unchanged', async () => {
    await refusedWith(f.call('workspace_ask', { question: 'Anyone?' }), 'question_unanswered');
  });
});
