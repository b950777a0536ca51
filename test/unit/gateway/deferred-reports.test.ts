import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import type { CallReport } from '../../../src/gateway/owner/call-handler.js';
import { DeferredReports } from '../../../src/gateway/owner/deferred-reports.js';

const report = (callId: string): CallReport => ({ callId, sessionId: 's', tool: 'workspace_read', outcome: 'ok' });

describe("the owner's deferred status lines", () => {
  it('hands over the calls of several turns together, in the order they settled, once the gathering time is up', async () => {
    const handed: string[][] = [];
    const reports = new DeferredReports((batch) => handed.push(batch.map((r) => r.callId)), 30);
    reports.add(report('a'));
    await sleep(1);
    reports.add(report('b'));
    await new Promise((resolve) => setImmediate(resolve));
    reports.add(report('c'));
    // Not one by one as each call settles: each line written alone cost a write of its own per call.
    assert.deepEqual(handed, []);
    await sleep(60);
    assert.deepEqual(handed, [['a', 'b', 'c']]);
    reports.add(report('d'));
    await sleep(60);
    assert.deepEqual(handed, [['a', 'b', 'c'], ['d']]);
  });

  it('hands over what waits at once on flush, and nothing twice', async () => {
    const handed: string[][] = [];
    const reports = new DeferredReports((batch) => handed.push(batch.map((r) => r.callId)), 30);
    reports.flush();
    reports.add(report('a'));
    reports.add(report('b'));
    reports.flush();
    assert.deepEqual(handed, [['a', 'b']]);
    await sleep(60);
    assert.deepEqual(handed, [['a', 'b']]);
  });
});
