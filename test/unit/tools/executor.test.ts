import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { BerthError } from '../../../src/protocol/errors/index.js';
import { SqliteReceiptRepository } from '../../../src/store/repos/receipts.js';
import { sha256Revision } from '../../../src/protocol/tools/canonical-json.js';
import type { PermissionRequest } from '../../../src/tools/permission.js';
import type { ToolContext, ToolOutcome } from '../../../src/tools/types.js';
import { countingTool, executorFor, tempStore } from '../../support/tools.js';

type TempStore = ReturnType<typeof tempStore>;

function errorCode(outcome: ToolOutcome): string | undefined {
  return outcome.ok ? undefined : outcome.error.code;
}

describe('the tool executor', () => {
  let s: TempStore;
  beforeEach(() => (s = tempStore()));
  afterEach(() => s.close());

  it('refuses arguments that break the schema with the field and ajv message, without running', async () => {
    const tool = countingTool('t.echo');
    const exec = executorFor([tool], s.journal);
    const tooLong = await exec.call({ callId: 'c1', name: 't.echo', args: { text: 'far too long for ten' } });
    assert.equal(errorCode(tooLong), 'invalid_arguments');
    assert.ok(!tooLong.ok);
    assert.equal(tooLong.error.details?.field, 'text');
    assert.match(tooLong.error.message, /must NOT have more than 10 characters/);
    const extra = await exec.call({ callId: 'c2', name: 't.echo', args: { other: 1 } });
    assert.equal(!extra.ok && extra.error.details?.field, 'other');
    const notObject = await exec.call({ callId: 'c3', name: 't.echo', args: ['text'] });
    assert.equal(errorCode(notObject), 'invalid_arguments');
    assert.equal(tool.runs, 0);
  });

  it('answers an unknown tool with unknown_tool', async () => {
    const outcome = await executorFor([], s.journal).call({ callId: 'c1', name: 'nope', args: {} });
    assert.equal(errorCode(outcome), 'unknown_tool');
  });

  it('refuses an empty or overlong call id before anything runs', async () => {
    const write = countingTool('t.write', { policy: 'write' });
    const exec = executorFor([write], s.journal);
    assert.equal(errorCode(await exec.call({ callId: '', name: 't.write', args: {} })), 'invalid_request');
    assert.equal(errorCode(await exec.call({ callId: 'x'.repeat(201), name: 't.write', args: {} })), 'invalid_request');
    assert.equal(write.runs, 0);
  });

  it('refuses write and critical tools under a read guard before asking anyone', async () => {
    const write = countingTool('t.write', { policy: 'write' });
    const critical = countingTool('t.exec', { policy: 'critical' });
    const asked: PermissionRequest[] = [];
    const exec = executorFor([write, critical], s.journal, {
      guard: { maxPolicy: 'read' },
      permission: async (r) => (asked.push(r), { allow: true }),
    });
    for (const name of ['t.write', 't.exec']) {
      const outcome = await exec.call({ callId: name, name, args: {} });
      assert.equal(errorCode(outcome), 'policy_denied', name);
    }
    assert.equal(asked.length, 0);
    assert.equal(write.runs + critical.runs, 0);
  });

  it('asks permission for write and critical calls only, and a rejection runs nothing', async () => {
    const read = countingTool('t.read');
    const write = countingTool('t.write', { policy: 'write' });
    const asked: string[] = [];
    const exec = executorFor([read, write], s.journal, {
      permission: async (r) => (asked.push(r.tool.name), { allow: false, reason: 'Not today' }),
    });
    assert.ok((await exec.call({ callId: 'r1', name: 't.read', args: {} })).ok);
    const rejected = await exec.call({ callId: 'w1', name: 't.write', args: {} });
    assert.equal(errorCode(rejected), 'permission_rejected');
    assert.equal(!rejected.ok && rejected.error.message, 'Not today');
    assert.deepEqual(asked, ['t.write']);
    assert.equal(write.runs, 0);
    assert.equal(await s.journal.find('test', 'w1'), undefined, 'a rejected call leaves no receipt');
  });

  it('returns the stored result for a repeated call id without a second effect', async () => {
    const write = countingTool('t.write', { policy: 'write' });
    let asked = 0;
    const exec = executorFor([write], s.journal, { permission: async () => (asked++, { allow: true }) });
    const first = await exec.call({ callId: 'w1', name: 't.write', args: { text: 'hi' } });
    const second = await exec.call({ callId: 'w1', name: 't.write', args: { text: 'hi' } });
    assert.equal(write.runs, 1);
    assert.equal(asked, 1, 'a replay does not ask again');
    assert.ok(first.ok && second.ok);
    assert.deepEqual(second.result, first.result);
    assert.equal(second.replayed, true);
    assert.equal(first.replayed, undefined);
    const fresh = executorFor([write], s.journal);
    const third = await fresh.call({ callId: 'w1', name: 't.write', args: { text: 'hi' } });
    assert.ok(third.ok && third.replayed);
    assert.equal(write.runs, 1, 'another executor on the same store replays too');
  });

  it('runs a duplicate that arrives while the first call is running only once', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const write = countingTool('t.write', { policy: 'write', run: async () => (await gate, { value: 'done' }) });
    const exec = executorFor([write], s.journal);
    const first = exec.call({ callId: 'w1', name: 't.write', args: {} });
    await new Promise((r) => setImmediate(r));
    const second = exec.call({ callId: 'w1', name: 't.write', args: {} });
    release();
    const [a, b] = await Promise.all([first, second]);
    assert.equal(write.runs, 1);
    assert.ok(a.ok && b.ok && b.replayed);
  });

  it('refuses a call id reused for other arguments or another tool', async () => {
    const write = countingTool('t.write', { policy: 'write' });
    const other = countingTool('t.other', { policy: 'critical' });
    const exec = executorFor([write, other], s.journal);
    await exec.call({ callId: 'w1', name: 't.write', args: { text: 'a' } });
    assert.equal(errorCode(await exec.call({ callId: 'w1', name: 't.write', args: { text: 'b' } })), 'call_id_reused');
    assert.equal(errorCode(await exec.call({ callId: 'w1', name: 't.other', args: { text: 'a' } })), 'call_id_reused');
    assert.equal(write.runs + other.runs, 1);
  });

  it('keeps call ids of different namespaces apart', async () => {
    const write = countingTool('t.write', { policy: 'write' });
    await executorFor([write], s.journal, { namespace: 'session:a' }).call({ callId: 'w1', name: 't.write', args: {} });
    const other = await executorFor([write], s.journal, { namespace: 'session:b' }).call({ callId: 'w1', name: 't.write', args: {} });
    assert.ok(other.ok && !other.replayed);
    assert.equal(write.runs, 2);
  });

  it('runs read-only calls again and journals nothing for them', async () => {
    const read = countingTool('t.read');
    const exec = executorFor([read], s.journal);
    await exec.call({ callId: 'r1', name: 't.read', args: {} });
    const again = await exec.call({ callId: 'r1', name: 't.read', args: {} });
    assert.equal(read.runs, 2);
    assert.ok(again.ok && !again.replayed);
    assert.equal(await s.journal.find('test', 'r1'), undefined);
  });

  it('journals a failed effect and replays the same error', async () => {
    const write = countingTool('t.write', {
      policy: 'write',
      run: () => {
        throw new BerthError('stale_hash', 'The file changed since it was read');
      },
    });
    const exec = executorFor([write], s.journal);
    const first = await exec.call({ callId: 'w1', name: 't.write', args: {} });
    const second = await exec.call({ callId: 'w1', name: 't.write', args: {} });
    assert.equal(errorCode(first), 'stale_hash');
    assert.deepEqual(second, first);
    assert.equal(write.runs, 1);
    assert.equal((await s.journal.find('test', 'w1'))?.status, 'completed');
  });

  it('answers a receipt left executing by a dead process with uncertain_effect and never runs it', async () => {
    const write = countingTool('t.write', { policy: 'write' });
    new SqliteReceiptRepository(s.store.db).begin({
      namespace: 'test',
      callId: 'w1',
      toolName: 't.write',
      argsDigest: sha256Revision({}),
      startedAt: 1,
    });
    const outcome = await executorFor([write], s.journal).call({ callId: 'w1', name: 't.write', args: {} });
    assert.equal(errorCode(outcome), 'uncertain_effect');
    assert.equal(write.runs, 0);
  });

  it('checks availability again right before running', async () => {
    let available = true;
    const write = countingTool('t.write', {
      policy: 'write',
      availability: () => (available ? { available: true } : { available: false, code: 'offline', reason: 'The device is offline' }),
    });
    const exec = executorFor([write], s.journal, {
      permission: async () => {
        available = false; // the state changes while the owner decides
        return { allow: true };
      },
    });
    const outcome = await exec.call({ callId: 'w1', name: 't.write', args: {} });
    assert.equal(errorCode(outcome), 'tool_unavailable');
    assert.deepEqual(!outcome.ok && outcome.error.details?.runtime, { available: false, code: 'offline', reason: 'The device is offline' });
    assert.equal(write.runs, 0);
    assert.equal(await s.journal.find('test', 'w1'), undefined);
  });

  it('refuses a call whose signal aborted before it ran', async () => {
    const write = countingTool('t.write', { policy: 'write' });
    const ctl = new AbortController();
    ctl.abort();
    const outcome = await executorFor([write], s.journal).call({ callId: 'w1', name: 't.write', args: {} }, ctl.signal);
    assert.equal(errorCode(outcome), 'tool_cancelled');
    assert.equal(write.runs, 0);
  });

  it('reports an unexpected exception from a tool as tool_failed', async () => {
    const read = countingTool('t.read', {
      run: () => {
        throw new TypeError('boom');
      },
    });
    const outcome = await executorFor([read], s.journal).call({ callId: 'r1', name: 't.read', args: {} });
    assert.deepEqual(outcome, { ok: false, error: { code: 'tool_failed', message: 'boom', retryable: false } });
  });

  it('hands the tool its call id, workspace, session, signal and an ask that reaches the ask hook', async () => {
    const seen: unknown[] = [];
    const tool = {
      ...countingTool('t.ask'),
      async run(_args: Record<string, unknown>, ctx: ToolContext) {
        seen.push(ctx.callId, ctx.sessionId, ctx.workspace.id, ctx.signal.aborted);
        return { value: await ctx.ask({ callId: ctx.callId, question: 'Which branch?' }) };
      },
    };
    const exec = executorFor([tool], s.journal, { sessionId: 's1', ask: async (q) => `answer to ${q.question}` });
    const outcome = await exec.call({ callId: 'q1', name: 't.ask', args: {} });
    assert.deepEqual(seen, ['q1', 's1', 'ws-test', false]);
    assert.ok(outcome.ok);
    assert.equal(outcome.result.value, 'answer to Which branch?');
    const unanswered = await executorFor([tool], s.journal).call({ callId: 'q2', name: 't.ask', args: {} });
    assert.equal(errorCode(unanswered), 'question_unanswered');
  });
});
