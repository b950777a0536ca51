import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { systemClock } from '../../../src/clock.js';
import { openStore } from '../../../src/store/db.js';
import { SqliteReceiptRepository } from '../../../src/store/repos/receipts.js';
import type { ToolOutcome } from '../../../src/tools/types.js';
import { allowWithoutAsking } from '../../../src/tools/permission.js';
import { ReceiptJournal } from '../../../src/tools/receipt-journal.js';
import { ToolService } from '../../../src/tools/service.js';
import { removeDir, tempDir } from '../../support/tmp.js';
import { fakeWorkspace } from '../../support/tools.js';
import { appendLineTool, EFFECT_DONE } from './fixtures/effect-tool.js';

const repoRoot = new URL('../../..', import.meta.url).pathname;
const childScript = new URL('./fixtures/crash-after-effect.ts', import.meta.url).pathname;

/** Starts the child and resolves once it reports that the effect happened. */
async function runUntilEffect(home: string, effects: string, callId: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', childScript, home, effects, callId], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes(EFFECT_DONE)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`child exited (${code}) before its effect: ${stderr}`)));
  });
  return { child, exited };
}

describe('receipts across a process crash', () => {
  const home = tempDir('berth-crash-');
  after(() => removeDir(home));

  it('leaves an uncertain receipt when the process dies between effect and result, and never runs the call again', async () => {
    const effects = join(home, 'effects.log');
    const { child, exited } = await runUntilEffect(home, effects, 'call-1');
    child.kill('SIGKILL');
    const [, signal] = await exited;
    assert.equal(signal, 'SIGKILL');
    assert.equal(readFileSync(effects, 'utf8'), 'effect\n', 'the effect happened once');

    const store = openStore(home);
    try {
      const repo = new SqliteReceiptRepository<ToolOutcome>(store.db);
      assert.equal((await repo.find('crash-test', 'call-1'))?.status, 'executing', 'the receipt was written before the effect');

      const tools = new ToolService({ journal: new ReceiptJournal(repo), clock: systemClock });
      tools.setHostTools('local', () => [appendLineTool(effects, false)]);
      const set = tools.toolSet({ workspace: fakeWorkspace(), sessionId: null, namespace: 'crash-test', permission: allowWithoutAsking });

      const retried = await set.call({ callId: 'call-1', name: 'effect.append', args: { line: 'effect' } });
      assert.equal(retried.ok, false);
      assert.equal(!retried.ok && retried.error.code, 'uncertain_effect');
      assert.equal(readFileSync(effects, 'utf8').split('\n').filter(Boolean).length, 1, 'the effect count stays 1');

      const fresh = await set.call({ callId: 'call-2', name: 'effect.append', args: { line: 'next' } });
      assert.ok(fresh.ok, 'a new call id still runs');
      assert.equal((await repo.find('crash-test', 'call-2'))?.status, 'completed');
    } finally {
      store.close();
    }
  });
});
