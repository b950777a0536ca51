import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { BatchingTool } from '../../../src/tools/dispatch.js';
import type { Tool, ToolOutcome } from '../../../src/tools/types.js';
import { countingTool, executorFor, tempStore } from '../../support/tools.js';

type TempStore = ReturnType<typeof tempStore>;

/** A batching tool over the given targets: each call names a target; running it counts and records the calls. */
function batchOver(targets: readonly Tool[]): BatchingTool & { runs: number } {
  const tool = {
    name: 't.batch',
    description: 'runs several',
    category: 'test',
    policy: 'read' as const,
    inputSchema: { type: 'object', properties: { calls: { type: 'array' } }, required: ['calls'] },
    annotations: {},
    runs: 0,
    resolveBatch(args: Record<string, unknown>) {
      return (args.calls as { name: string; args: unknown }[]).map((c) => ({ tool: targets.find((t) => t.name === c.name)!, args: c.args }));
    },
    async run(args: Record<string, unknown>) {
      tool.runs += 1;
      return { value: { ran: (args.calls as unknown[]).length, run: tool.runs } };
    },
  };
  return tool;
}

const code = (o: ToolOutcome) => (o.ok ? undefined : o.error.code);

describe('the tool executor with a batch', () => {
  let s: TempStore;
  beforeEach(() => (s = tempStore()));
  afterEach(() => s.close());
  const read = countingTool('t.read');
  const write = countingTool('t.write', { policy: 'write' });
  const critical = countingTool('t.exec', { policy: 'critical' });

  it('asks about every write and critical target in order, then runs the batch once; a repeat replays it', async () => {
    const batch = batchOver([read, write, critical]);
    const asked: string[] = [];
    const exec = executorFor([batch], s.journal, { permission: async (r) => (asked.push(`${r.tool.name} via ${r.via}`), { allow: true }) });
    const args = { calls: [{ name: 't.read', args: {} }, { name: 't.write', args: { text: 'a' } }, { name: 't.exec', args: {} }] };
    const first = await exec.call({ callId: 'b1', name: 't.batch', args });
    assert.equal(first.ok, true);
    assert.deepEqual(asked, ['t.write via t.batch', 't.exec via t.batch']);
    const again = await exec.call({ callId: 'b1', name: 't.batch', args });
    assert.equal(again.ok && again.replayed, true);
    assert.equal(batch.runs, 1, 'the journal kept the batch from running twice');
    assert.equal(asked.length, 2, 'a replay asks nobody');
  });

  it('refuses the whole batch, running nothing, when one target breaks its schema, the guard, or is rejected', async () => {
    const batch = batchOver([read, write]);
    const wrong = { calls: [{ name: 't.read', args: {} }, { name: 't.write', args: { text: 'far too long for ten' } }] };
    assert.equal(code(await executorFor([batch], s.journal).call({ callId: 'x1', name: 't.batch', args: wrong })), 'invalid_arguments');
    const both = { calls: [{ name: 't.read', args: {} }, { name: 't.write', args: {} }] };
    const guarded = executorFor([batch], s.journal, { guard: { maxPolicy: 'read' } });
    assert.equal(code(await guarded.call({ callId: 'x2', name: 't.batch', args: both })), 'policy_denied');
    const rejecting = executorFor([batch], s.journal, { permission: async () => ({ allow: false, reason: 'no' }) });
    assert.equal(code(await rejecting.call({ callId: 'x3', name: 't.batch', args: both })), 'permission_rejected');
    assert.equal(batch.runs, 0);
  });

  it('runs a batch of reads without asking or journaling: a repeat runs again', async () => {
    const batch = batchOver([read]);
    let asked = 0;
    const exec = executorFor([batch], s.journal, { permission: async () => (asked++, { allow: true }) });
    const args = { calls: [{ name: 't.read', args: {} }] };
    await exec.call({ callId: 'r1', name: 't.batch', args });
    await exec.call({ callId: 'r1', name: 't.batch', args });
    assert.equal(batch.runs, 2);
    assert.equal(asked, 0);
  });
});
