import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { BerthError } from '../../../src/protocol/errors/index.js';
import { parseBatch, runBatch } from '../../../src/protocol/tools/batch.js';
import { ToolSet } from '../../../src/tools/tool-set.js';
import { FULL_ACCESS } from '../../../src/protocol/tools/guard.js';
import { allowWithoutAsking } from '../../../src/tools/permission.js';
import { countingTool, fakeWorkspace, fixedClock, tempStore } from '../../support/tools.js';

const isCode = (code: string) => (err: unknown) => err instanceof BerthError && err.code === code;

describe('tool batches', () => {
  let s: ReturnType<typeof tempStore>;
  let order: string[];
  let set: ToolSet;
  beforeEach(() => {
    s = tempStore();
    order = [];
    const step = (name: string) =>
      countingTool(name, { policy: 'write', run: (args) => (order.push(`${name}:${String(args.text)}`), { value: name }) });
    const clock = fixedClock();
    set = new ToolSet(
      [step('t.a'), step('t.b')],
      {
        guard: FULL_ACCESS,
        permission: allowWithoutAsking,
        journal: s.journal,
        clock,
        namespace: 'app:test',
        workspace: fakeWorkspace(),
        sessionId: null,
      },
      clock.now,
    );
  });
  afterEach(() => s.close());

  it('runs calls in input order and reports each with its index and call id', async () => {
    const report = await set.batch(
      { calls: [{ callId: 'one', toolId: 't.b', arguments: { text: '1' } }, { toolId: 't.a', arguments: { text: '2' } }] },
      { batchId: 'b1' },
    );
    assert.deepEqual(order, ['t.b:1', 't.a:2']);
    assert.deepEqual(
      { success: report.success, completed: report.completed, requested: report.requested, stoppedEarly: report.stoppedEarly },
      { success: true, completed: 2, requested: 2, stoppedEarly: false },
    );
    assert.deepEqual(report.results.map((r) => [r.index, r.callId, r.toolId, r.outcome.ok]), [
      [0, 'one', 't.b', true],
      [1, undefined, 't.a', true],
    ]);
    assert.equal('callId' in report.results[1]!, false, 'a call without callId reports none');
    assert.equal((await s.journal.find('app:test', 'b1#1'))?.status, 'completed', 'it is journaled under <batchId>#<index>');
  });

  it('stops at the first failed call', async () => {
    const report = await set.batch(
      {
        calls: [
          { toolId: 't.a', arguments: { text: '1' } },
          { toolId: 't.missing', arguments: {} },
          { toolId: 't.b', arguments: { text: '3' } },
        ],
      },
      { batchId: 'b2' },
    );
    assert.deepEqual(order, ['t.a:1']);
    assert.equal(report.success, false);
    assert.equal(report.completed, 2);
    assert.equal(report.requested, 3);
    assert.equal(report.stoppedEarly, true);
    const failed = report.results[1]!.outcome;
    assert.equal(!failed.ok && failed.error.code, 'unknown_tool');
  });

  it('goes on past failures with continueOnError', async () => {
    const report = await set.batch(
      {
        continueOnError: true,
        calls: [
          { toolId: 't.a', arguments: { text: 'way too long to pass' } },
          { toolId: 't.b', arguments: { text: '2' } },
        ],
      },
      { batchId: 'b3' },
    );
    assert.deepEqual(order, ['t.b:2']);
    assert.equal(report.success, false);
    assert.equal(report.completed, 2);
    assert.equal(report.stoppedEarly, false);
  });

  it('refuses an empty batch and one above 32 calls with batch_size', async () => {
    const call = { toolId: 't.a', arguments: {} };
    await assert.rejects(set.batch({ calls: [] }, { batchId: 'b4' }), isCode('batch_size'));
    await assert.rejects(set.batch({ calls: Array(33).fill(call) }, { batchId: 'b5' }), isCode('batch_size'));
    assert.throws(() => parseBatch({ calls: Array(33).fill(call) }), isCode('batch_size'));
    assert.throws(() => parseBatch({ calls: [] }), isCode('batch_size'));
    assert.equal(parseBatch({ calls: Array(32).fill(call) }).calls.length, 32);
    assert.deepEqual(order, []);
  });

  it('refuses a malformed batch whole with protocol_error', () => {
    for (const bad of [{}, { calls: 'x' }, { calls: [{ arguments: {} }] }, { calls: [7] }, { calls: [{ toolId: 't.a' }], continueOnError: 'yes' }]) {
      assert.throws(() => parseBatch(bad), isCode('protocol_error'), JSON.stringify(bad));
    }
  });

  it('stops before the next call once its signal aborts', async () => {
    const ctl = new AbortController();
    const report = await runBatch(
      { calls: [{ toolId: 'x' }, { toolId: 'y' }] },
      async () => (ctl.abort(), { ok: true, result: { value: null } }),
      ctl.signal,
    );
    assert.equal(report.completed, 1);
    assert.equal(report.stoppedEarly, true);
    assert.equal(report.success, false);
  });
});
