import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startScriptedModel, type ScriptedModel } from '../../src/devtools/scripted-model/index.js';
import { startTestDaemon, type TestDaemon } from '../support/daemon.js';
import { runTurn } from '../support/history.js';
import { EventReader, newSession } from '../support/session-client.js';
import { removeDir } from '../support/tmp.js';

/**
 * Compaction over the client API (issue 14): `POST /session/{id}/compact` summarises the older
 * turns with the scripted model, the transcript keeps it as its own record, the export shows
 * it, and a load after a restart continues on the same compacted context.
 */

const SUMMARY = '[Summary of the earlier conversation, made by Berth when the context filled up]\n\nq1 was answered with a1';

describe('compaction on demand, across a restart', () => {
  let model: ScriptedModel;
  let home = '';
  let workspace = '';
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
      config: { modelServices: [{ id: 'scripted', baseUrl: model.url, models: [{ id: 'scripted-model' }], defaultModel: 'scripted-model' }] },
    });

  const contents = (request: Record<string, any>): unknown[] => request.messages.slice(1).map((m: { content: unknown }) => m.content);

  it('compacts on request, records and exports it, and a load after a restart rebuilds the same context', async () => {
    let d = await start();
    home = d.home;
    workspace = d.workspace;
    let sessionId: string;
    try {
      ({ sessionId } = await newSession(d, { approvalMode: 'yolo' }));
      model.enqueue({ kind: 'reply', text: 'a1' }, { kind: 'reply', text: 'a2' }, { kind: 'reply', text: 'a3' });
      for (const q of ['q1', 'q2', 'q3']) await runTurn(d, sessionId, q);

      model.enqueue({ kind: 'reply', text: 'q1 was answered with a1' });
      const events = await EventReader.open(d, sessionId);
      const accepted = await d.json('POST', `/session/${sessionId}/compact`, {});
      assert.equal(accepted.status, 202);
      const terminal = await events.terminal(accepted.body.promptId);
      assert.equal(terminal.type, 'turn_complete');
      const done = events.seen.find((e) => e.type === 'session_update' && e.data.update.sessionUpdate === 'context_compacted')!;
      assert.equal(done.data.update.reason, 'request');
      events.close();
      const summaryRequest = model.completions().at(-1)!;
      assert.deepEqual(contents(summaryRequest), ['user: q1\nassistant: a1']);

      model.enqueue({ kind: 'reply', text: 'a4' });
      await runTurn(d, sessionId, 'q4');
      assert.deepEqual(contents(model.completions().at(-1)!), [SUMMARY, 'q2', 'a2', 'q3', 'a3', 'q4']);
    } finally {
      await d.close();
    }

    d = await start();
    try {
      assert.equal((await d.json('POST', `/session/${sessionId}/load`, {})).status, 200);
      model.enqueue({ kind: 'reply', text: 'a5' });
      await runTurn(d, sessionId, 'q5');
      assert.deepEqual(contents(model.completions().at(-1)!), [SUMMARY, 'q2', 'a2', 'q3', 'a3', 'q4', 'a4', 'q5'], 'the restored context is the compacted one');
      const md = await (await d.fetch(`/session/${sessionId}/export?format=md`)).text();
      assert.match(md, /Context compacted/);
    } finally {
      await d.close();
    }
  });
});
