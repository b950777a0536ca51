import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setImmediate as nextTask } from 'node:timers/promises';
import { runInNewContext } from 'node:vm';
import { collectStartupGarbage } from '../../../src/main/startup-gc.js';

describe('the start-up collection', () => {
  it('collects what nothing holds any more, and leaves no gc function behind', async () => {
    // Made in another task: a WeakRef keeps its target alive until the end of the task that made or read it.
    const ref = (() => new WeakRef({ garbage: 'x'.repeat(1000) }))();
    await nextTask();
    const ms = collectStartupGarbage();
    assert.equal(ref.deref(), undefined, 'the unreachable object was collected');
    assert.ok(ms !== null && ms >= 0);
    assert.equal(runInNewContext('typeof gc'), 'undefined', 'contexts made later get no gc function');
    assert.equal(typeof (globalThis as { gc?: unknown }).gc, 'undefined');
  });

  it('collects nothing and says so when what stands for gc is not a function', () => {
    const global = globalThis as { gc?: unknown };
    global.gc = 'not a function';
    try {
      assert.equal(collectStartupGarbage(), null);
    } finally {
      delete global.gc;
    }
  });
});
