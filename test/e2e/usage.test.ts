import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startScriptedModel, type ScriptedModel } from '../../src/devtools/scripted-model/index.js';
import { startTestDaemon, type TestDaemon, sqliteDb } from '../support/daemon.js';
import { runTurn } from '../support/history.js';
import { newSession } from '../support/session-client.js';
import { removeDir } from '../support/tmp.js';

/**
 * Usage and cost (issue 14): every model request's tokens reach the stream as qwen sends
 * them, the turn and session totals match the scripted model's counts in the status, the
 * turn's end and the transcript, and they survive a daemon restart and a load.
 */

const PRICE = { inputPerMillion: 3, outputPerMillion: 15, currency: 'EUR' };

describe('usage and cost over the client API', () => {
  let model: ScriptedModel;
  let home: string;
  let workspace: string;
  before(async () => {
    model = await startScriptedModel({ port: 0 });
  });
  after(async () => {
    await model.close();
    if (home) removeDir(home);
    if (workspace) removeDir(workspace);
  });

  const start = (): Promise<TestDaemon> =>
    startTestDaemon({
      ...(home ? { home, workspace } : {}),
      keep: true,
      config: {
        modelServices: [
          { id: 'scripted', baseUrl: model.url, models: [{ id: 'scripted-model', contextWindow: 64_000, price: PRICE }], defaultModel: 'scripted-model' },
        ],
      },
    });

  it('totals per turn and per session match the model’s reported counts, and survive a restart', async () => {
    let d = await start();
    home = d.home;
    workspace = d.workspace;
    let sessionId: string;
    try {
      ({ sessionId } = await newSession(d, { approvalMode: 'yolo' }));
      model.enqueue(
        { kind: 'reply', toolCalls: [{ name: 'workspace_info', arguments: {} }], usage: { promptTokens: 1000, completionTokens: 100, cachedTokens: 0 } },
        { kind: 'reply', text: 'done', usage: { promptTokens: 1200, completionTokens: 50, reasoningTokens: 20, cachedTokens: 0 } },
      );
      const { terminal, events } = await runTurn(d, sessionId, 'look around');
      assert.equal(terminal.type, 'turn_complete');
      const fills = events.filter((e) => e.type === 'session_update' && e.data.update.sessionUpdate === 'usage_update').map((e) => e.data.update);
      assert.deepEqual(
        fills.map((u) => [u.used, u.size]),
        [[1000, 64_000], [1200, 64_000]],
        'one usage_update per model request: the prompt fill of the configured window',
      );
      // 1000×3 + 100×15 + 1200×3 + 50×15 per million
      const cost = (3000 + 1500 + 3600 + 750) / 1e6;
      assert.deepEqual(fills[1].cost, { amount: cost, currency: 'EUR' }, 'ACP cost: the session so far');
      const turn = terminal.data.usage;
      assert.deepEqual(
        { ...turn, cost: undefined },
        { requests: 2, inputTokens: 2200, outputTokens: 150, totalTokens: 2350, thoughtTokens: 20, cachedReadTokens: 0, cost: undefined },
      );

      model.enqueue({ kind: 'reply', text: 'again', usage: { promptTokens: 1300, completionTokens: 10, cachedTokens: 0 } });
      await runTurn(d, sessionId, 'once more');
      const status = (await d.json('GET', `/session/${sessionId}/status`)).body;
      assert.equal(status.usage.session.requests, 3);
      assert.equal(status.usage.session.inputTokens, 3500);
      assert.equal(status.usage.session.outputTokens, 160);
      assert.equal(status.usage.lastTurn.inputTokens, 1300);
      const row = sqliteDb(d.daemon)
        .prepare("SELECT data FROM transcript WHERE session_id = ? AND kind = 'turn_end' ORDER BY seq")
        .all(sessionId) as { data: string }[];
      assert.deepEqual(row.map((r) => JSON.parse(r.data).usage.inputTokens), [2200, 1300], 'each turn_end record keeps its turn’s totals');
    } finally {
      await d.close();
    }

    d = await start();
    try {
      const loaded = await d.json('POST', `/session/${sessionId}/load`, {});
      assert.equal(loaded.status, 200);
      const status = (await d.json('GET', `/session/${sessionId}/status`)).body;
      assert.equal(status.usage.session.requests, 3, 'rebuilt from the transcript after the restart');
      assert.equal(status.usage.session.inputTokens, 3500);
      assert.equal(status.usage.session.cost.currency, 'EUR');
    } finally {
      await d.close();
    }
  });
});
