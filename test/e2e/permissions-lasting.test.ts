import assert from 'node:assert/strict';
import { realpathSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { startScriptedModel, type ScriptedModel } from '../../src/devtools/scripted-model/index.js';
import { startTestDaemon, type TestDaemon, sqliteDb } from '../support/daemon.js';
import { EventReader, newSession, type WireEvent } from '../support/session-client.js';
import { votedTurn } from '../support/voted-turn.js';
import { removeDir, tempDir } from '../support/tmp.js';

/**
 * Permissions that last (issue 14) and options that mean what a client shows (issue 13):
 * qwen's option ids per kind of call, "always" grants kept in the store across a restart,
 * the approval mode changed mid-session, and the workspace allow-list named in the reason.
 */

interface Turn {
  readonly asked: WireEvent[];
  /** `_meta.permissionReason` of each call that started, in order ('' when a person allowed it). */
  readonly reasons: string[];
  readonly results: { status: string; rawOutput: any }[];
}

const exec = (command: string) => ({ name: 'workspace_exec', arguments: { command } });

describe('permissions that last', () => {
  let model: ScriptedModel;
  let workspace: string;
  let home: string;
  before(async () => {
    model = await startScriptedModel({ port: 0 });
    workspace = realpathSync(tempDir('berth-ws-'));
    home = tempDir('berth-home-');
  });
  after(async () => {
    await model.close();
    removeDir(workspace);
    removeDir(home);
  });

  const start = (): Promise<TestDaemon> =>
    startTestDaemon({
      home,
      workspace,
      keep: true,
      config: {
        modelServices: [{ id: 'scripted', baseUrl: model.url, models: [{ id: 'scripted-model' }], defaultModel: 'scripted-model' }],
        workspaceSettings: { [workspace]: { allow: [{ tool: 'workspace_exec', pattern: 'printf listed*' }] } },
      },
    });

  /** One prompt whose model makes `calls`; each permission request is answered with `choose(request)`. */
  async function turn(d: TestDaemon, sessionId: string, calls: object[], choose: (e: WireEvent) => string): Promise<Turn> {
    const done = await votedTurn(d, model, sessionId, calls, choose);
    const updates = done.events.filter((e) => e.type === 'session_update').map((e) => e.data.update);
    return {
      asked: done.asked,
      reasons: updates.filter((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'in_progress').map((u) => u._meta?.permissionReason ?? ''),
      results: done.settled.map((e) => ({ status: e.data.update.status, rawOutput: e.data.update.rawOutput })),
    };
  }

  const ids = (e: WireEvent) => e.data.options.map((o: { optionId: string }) => o.optionId);

  it('offers qwen’s options per kind of call: all edits for an edit, the command’s root for a command', async () => {
    const d = await start();
    try {
      const { sessionId } = await newSession(d, { approvalMode: 'default' });
      const t = await turn(d, sessionId, [{ name: 'workspace_write', arguments: { path: 'a.txt', content: 'a', expectedSha256: null } }, exec('git status; ls -la')], () => 'proceed_once');
      assert.deepEqual(ids(t.asked[0]!), ['proceed_once', 'proceed_always', 'cancel', 'reject_always']);
      assert.equal(t.asked[0]!.data.options[1].name, 'Allow All Edits');
      assert.deepEqual(ids(t.asked[1]!), ['proceed_once', 'proceed_always_project', 'proceed_always_user', 'cancel', 'reject_always']);
      assert.equal(t.asked[1]!.data.options[1].name, 'Always Allow in project: git, ls');
      const hidden = await turn(d, sessionId, [exec('echo $(whoami)')], () => 'cancel');
      assert.deepEqual(ids(hidden.asked[0]!), ['proceed_once', 'cancel', 'reject_always'], 'a command line it cannot read gets no "always"');
    } finally {
      await d.close();
    }
  });

  it('an "always" for a command root survives a restart and covers that root only', async () => {
    let d = await start();
    let sessionId: string;
    try {
      ({ sessionId } = await newSession(d, { approvalMode: 'default' }));
      const first = await turn(d, sessionId, [exec('echo one')], () => 'proceed_always_project');
      assert.equal(first.asked.length, 1);
      assert.equal(first.results[0]!.status, 'completed');
    } finally {
      await d.close();
    }
    d = await start();
    try {
      assert.equal((await d.json('POST', `/session/${sessionId}/load`, {})).status, 200);
      const later = await turn(d, sessionId, [exec('echo two'), exec('echo three | wc -c')], () => 'cancel');
      assert.equal(later.asked.length, 1, 'echo runs unasked; a line that also runs wc is asked about');
      assert.match(later.reasons[0]!, /remembered choice: echo always allowed in this workspace/);
      assert.deepEqual(later.results.map((r) => r.status), ['completed', 'failed']);
    } finally {
      await d.close();
    }
  });

  it('the workspace allow-list lets a matching command run unasked and says so; a chained one is asked', async () => {
    const d = await start();
    try {
      const { sessionId } = await newSession(d, { approvalMode: 'default' });
      const t = await turn(d, sessionId, [exec('printf listed-here'), exec('printf listed; touch x')], () => 'cancel');
      assert.equal(t.asked.length, 1);
      assert.equal(t.asked[0]!.data.toolCall.rawInput.command, 'printf listed; touch x');
      assert.match(t.reasons[0]!, /allowed by the workspace allow-list in config.json: workspace_exec "printf listed\*"/);
    } finally {
      await d.close();
    }
  });

  it('POST /session/{id}/approval-mode changes the mode mid-session, answers as qwen serve, and is recorded', async () => {
    const d = await start();
    try {
      const { sessionId } = await newSession(d, { approvalMode: 'default' });
      const events = await EventReader.open(d, sessionId);
      const res = await d.json('POST', `/session/${sessionId}/approval-mode`, { mode: 'yolo' });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { sessionId, mode: 'yolo', previous: 'default', persisted: false });
      const changed = await events.type('approval_mode_changed', (e) => e.data.next === 'yolo');
      assert.deepEqual(changed.data, { sessionId, previous: 'default', next: 'yolo', persisted: false });
      events.close();
      assert.equal((await d.json('GET', `/session/${sessionId}/status`)).body.approvalMode, 'yolo');
      const t = await turn(d, sessionId, [exec('touch made.txt')], () => 'cancel');
      assert.equal(t.asked.length, 0, 'yolo asks nothing');
      assert.equal((await d.json('POST', `/session/${sessionId}/approval-mode`, { mode: 'reckless' })).status, 400);
      const recorded = sqliteDb(d.daemon)
        .prepare("SELECT data FROM transcript WHERE session_id = ? AND kind = 'approval_mode'")
        .all(sessionId) as { data: string }[];
      assert.deepEqual(JSON.parse(recorded.at(-1)!.data), { previous: 'default', next: 'yolo', persisted: false });
    } finally {
      await d.close();
    }
  });
});
