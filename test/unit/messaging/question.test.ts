import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MODULE_MOST_LINE } from '../../../src/protocol/limits.js';
import { isMalformed, parseQuestion } from '../../../src/messaging/question.js';

describe('module question parsing (seed 004 parse)', () => {
  it('reads every shape the seed shows', () => {
    assert.deepEqual(parseQuestion('{"token":"t","op":"list"}'), { token: 't', request: { op: 'list' } });
    assert.deepEqual(parseQuestion('{"token":"t","op":"inbox"}'), { token: 't', request: { op: 'inbox' } });
    assert.deepEqual(parseQuestion('{"token":"t","op":"peek"}'), { token: 't', request: { op: 'peek' } });
    assert.deepEqual(parseQuestion('{"token":"t","session":"ses_1","op":"list"}'), {
      token: 't',
      session: 'ses_1',
      request: { op: 'list' },
    });
    assert.deepEqual(parseQuestion('{"token":"t","op":"send","tab":"3","text":"Please run the tests.","kind":"report"}'), {
      token: 't',
      request: { op: 'send', tab: '3', text: 'Please run the tests.', kind: 'report' },
    });
  });

  it('gives a send without a kind the kind info', () => {
    const q = parseQuestion('{"token":"t","op":"send","tab":"all","text":"I am taking the parser; leave it to me."}');
    assert.ok(!isMalformed(q));
    assert.deepEqual(q.request, { op: 'send', tab: 'all', text: 'I am taking the parser; leave it to me.', kind: 'info' });
  });

  it('calls anything else malformed and keeps nothing of it', () => {
    for (const line of [
      '',
      'not json',
      '[]',
      '"list"',
      'null',
      '{"op":"list"}',
      '{"token":7,"op":"list"}',
      '{"token":"t"}',
      '{"token":"t","op":"delete"}',
      '{"token":"t","op":"send","text":"hi"}',
      '{"token":"t","op":"send","tab":"3"}',
      '{"token":"t","op":"send","tab":3,"text":"hi"}',
      '{"token":"t","op":"send","tab":"","text":"hi"}',
      '{"token":"t","op":"send","tab":"3","text":"hi","kind":"order"}',
      '{"token":"t","op":"list","session":5}',
      '{"token":"t","op":"list","tab":"3"}',
      '{"token":"t","op":"inbox","extra":true}',
    ]) {
      const q = parseQuestion(line);
      assert.ok(isMalformed(q), `${line} should be malformed`);
      assert.equal(Object.keys(q).sort().join(), 'malformed,reason', 'a malformed line carries only the reason');
    }
  });

  it('refuses bytes that are not UTF-8 as malformed', () => {
    const q = parseQuestion(Buffer.from([0x7b, 0xff, 0x7d]));
    assert.ok(isMalformed(q));
    assert.match(q.reason, /UTF-8/);
  });

  it('parses a line of exactly MOST_LINE bytes and refuses one byte more without parsing it', () => {
    const base = '{"token":"t","op":"list"}';
    const exact = base + ' '.repeat(MODULE_MOST_LINE - base.length);
    assert.equal(Buffer.byteLength(exact), MODULE_MOST_LINE);
    assert.deepEqual(parseQuestion(exact), { token: 't', request: { op: 'list' } });
    const over = parseQuestion(exact + ' ');
    assert.ok(isMalformed(over));
    assert.match(over.reason, /longer than 262144 bytes/);
  });
});
