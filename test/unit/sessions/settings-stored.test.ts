import assert from 'node:assert/strict';
import { test } from 'node:test';
import { systemClock } from '../../../src/clock.js';
import type { PublishInput } from '../../../src/events/types.js';
import { silentLogger } from '../../../src/log.js';
import type { SessionPatch, SessionRepository } from '../../../src/sessions/records.js';
import { SessionRowWriter } from '../../../src/sessions/session-row.js';
import { SessionSettings } from '../../../src/sessions/settings.js';
import { WriteChain } from '../../../src/write-chain.js';

/** A row store whose updates wait until the test lets them finish, or fail. */
function heldRepo() {
  const patches: SessionPatch[] = [];
  let release: (err?: Error) => void = () => {};
  const repo = {
    update: (_id: string, patch: SessionPatch) =>
      new Promise<void>((resolve, reject) => {
        release = (err) => {
          if (err) return reject(err);
          patches.push(patch);
          resolve();
        };
      }),
  } as unknown as SessionRepository;
  return { repo, patches, finish: (err?: Error) => release(err) };
}

function settingsOn(repo: SessionRepository) {
  const published: PublishInput[] = [];
  let model = 'model-a';
  const row = new SessionRowWriter('s1', repo, systemClock, new WriteChain(silentLogger(), {}));
  const settings = new SessionSettings(
    {
      sessionId: 's1',
      row,
      driver: {
        setModel: async (id: string) => void (model = id),
        state: () => ({ models: { currentModelId: model, availableModels: [] } }) as never,
      },
      publish: (input) => void published.push(input),
    },
    { displayName: null, prs: [], approvalMode: 'default' },
  );
  return { settings, published, model: () => model };
}

const tick = () => new Promise((r) => setImmediate(r));

test('an approval-mode change shows only once its row is stored, and a failed write changes nothing', async () => {
  const store = heldRepo();
  const { settings, published } = settingsOn(store.repo);
  const asked = settings.setApprovalMode('yolo', 'c1');
  await tick();
  assert.equal(settings.approvalMode, 'default', 'not in effect while its write is in flight');
  assert.equal(published.length, 0, 'not announced while its write is in flight');
  store.finish();
  assert.deepEqual(await asked, { previous: 'default', mode: 'yolo', persisted: false });
  assert.deepEqual(store.patches, [{ approvalMode: 'yolo' }]);
  assert.equal(settings.approvalMode, 'yolo');
  assert.equal(published[0]?.type, 'approval_mode_changed');

  const failing = settings.setApprovalMode('plan', 'c1');
  await tick();
  store.finish(new Error('disk I/O error'));
  await assert.rejects(failing, /disk I\/O error/);
  assert.equal(settings.approvalMode, 'yolo', 'a write that failed left the mode as it was');
  assert.equal(published.length, 1, 'and announced nothing');
});

test('a rename is stored before it answers; a model switch whose row write fails goes back to the stored model', async () => {
  const store = heldRepo();
  const { settings, published, model } = settingsOn(store.repo);
  const renamed = settings.updateMetadata({ displayName: 'Parser work' }, 'c1');
  await tick();
  assert.equal(settings.displayName, null);
  store.finish();
  assert.equal((await renamed).displayName, 'Parser work');
  assert.deepEqual(store.patches, [{ displayName: 'Parser work', titleSource: 'manual' }]);
  assert.equal(published.at(-1)?.type, 'session_metadata_updated');

  const switching = settings.switchModel('model-b', 'c1');
  await tick();
  store.finish(new Error('database is locked'));
  await assert.rejects(switching, /database is locked/);
  assert.equal(model(), 'model-a', 'the driver is back on the model the row names');
  assert.equal(published.some((p) => p.type === 'model_switched'), false);
});
