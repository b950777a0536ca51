import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { SqlitePromptRepository } from '../../src/store/repos/prompts.js';
import { EventReader, newSession, submit } from '../support/session-client.js';
import { startStack, type Stack } from '../support/stack.js';

/** A prompt whose bookkeeping fails still ends with exactly one terminal event, and the FIFO moves on. */
let stack: Stack;
before(async () => {
  stack = await startStack();
});
after(() => stack.close());

test('when the store refuses to record a prompt start, that prompt ends in one turn_error and the next one runs', async () => {
  const d = stack.daemon;
  const { sessionId, clientId } = await newSession(d);
  // The store's prompt ledger: the next start write fails once, as a full disk would make it.
  const ledger = SqlitePromptRepository.prototype;
  const started = ledger.started;
  let failures = 0;
  ledger.started = async function (this: SqlitePromptRepository, id: string, at: number) {
    if (failures++ === 0) throw new Error('SQLITE_FULL: database or disk is full');
    return started.call(this, id, at);
  };
  const events = await EventReader.open(d, sessionId);
  try {
    // The first starts at once, its start stored with its row; the two queued behind it are each marked when they start.
    const first = await submit(d, sessionId, 'first', {}, { 'x-qwen-client-id': clientId });
    const second = await submit(d, sessionId, 'second', {}, { 'x-qwen-client-id': clientId });
    const third = await submit(d, sessionId, 'third', {}, { 'x-qwen-client-id': clientId });
    assert.equal((await events.terminal(first.body.promptId)).type, 'turn_complete');
    const secondEnd = await events.terminal(second.body.promptId);
    assert.equal(secondEnd.type, 'turn_error');
    assert.equal(secondEnd.data.code, 'internal_error');
    const thirdEnd = await events.terminal(third.body.promptId);
    assert.equal(thirdEnd.type, 'turn_complete');
    const terminals = events.seen.filter(
      (e) => (e.type === 'turn_complete' || e.type === 'turn_error') && e.data.promptId === second.body.promptId,
    );
    assert.equal(terminals.length, 1);
  } finally {
    ledger.started = started;
    await events.close();
  }
});
