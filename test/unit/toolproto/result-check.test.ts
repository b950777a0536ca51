import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BatchReport } from '../../../src/protocol/tools/batch.js';
import { assertResultMatches, checkedReport } from '../../../src/toolproto/result-check.js';
import { BerthError } from '../../../src/protocol/errors/index.js';

const COUNT = { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] };
const lookup = (id: string) => (id === 'counted' ? { name: 'counted', outputSchema: COUNT } : id === 'free' ? { name: 'free' } : undefined);
const ok = (result: unknown) => ({ ok: true as const, result: { value: { result } } });

describe('checking application results against output schemas', () => {
  it('passes a matching result, a tool without a schema, and a tool it does not know', () => {
    assertResultMatches(lookup, 'counted', { success: true, result: { count: 1 } });
    assertResultMatches(lookup, 'free', { success: true, result: 'anything' });
    assertResultMatches(lookup, 'gone', { success: true, result: 'anything' });
  });

  it('refuses a result that does not match with tool_failed naming the field', () => {
    assert.throws(
      () => assertResultMatches(lookup, 'counted', { success: true, result: { count: 'one' } }),
      (err: BerthError) => err.code === 'tool_failed' && err.details.field === 'count' && err.details.outputSchema === true,
    );
    // No result at all is checked as null.
    assert.throws(() => assertResultMatches(lookup, 'counted', { success: true }), (err: BerthError) => err.code === 'tool_failed');
  });

  it('turns a batch item with a wrong result into a failure and the batch into no success; a clean batch is left as it is', () => {
    const report: BatchReport = {
      success: true,
      completed: 2,
      requested: 2,
      stoppedEarly: false,
      results: [
        { index: 0, toolId: 'counted', outcome: ok({ count: 2 }) },
        { index: 1, toolId: 'counted', outcome: ok({ count: 'two' }) },
      ],
    };
    const checked = checkedReport(lookup, report);
    assert.equal(checked.success, false);
    assert.equal(checked.results[0]!.outcome.ok, true);
    const second = checked.results[1]!.outcome;
    assert.equal(!second.ok && second.error.code, 'tool_failed');
    const clean = { ...report, results: [report.results[0]!] , completed: 1, requested: 1 };
    assert.equal(checkedReport(lookup, clean), clean);
  });
});
