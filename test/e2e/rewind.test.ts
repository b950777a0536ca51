import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DaemonClient } from '@qwen-code/sdk/daemon';
import { startScriptedModel, type ScriptedModel } from '../../src/devtools/scripted-model/index.js';
import { startTestDaemon, type TestDaemon } from '../support/daemon.js';
import { runTurn } from '../support/history.js';
import { eventually, newSession } from '../support/session-client.js';
import { removeDir } from '../support/tmp.js';

/**
 * Checkpoints and rewind (issue 14, docs/client-api.md §5.13) over the client API with the
 * scripted model: files changed over two turns come back, a file changed by someone else
 * refuses the rewind with its name, the model's next request no longer holds the undone
 * turns, and all of it holds across a restart.
 */

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const FILES = { 'a.txt': 'A0\n', 'b.txt': 'B0\n', 'd.txt': 'D0\n' };

/** Two turns: the first creates c.txt and patches a.txt; the second patches b.txt, rewrites a.txt and deletes d.txt. */
function scriptTwoTurns(model: ScriptedModel): void {
  model.enqueue(
    {
      kind: 'reply',
      toolCalls: [
        { name: 'workspace_write', arguments: { path: 'c.txt', content: 'C1\n', expectedSha256: null } },
        { name: 'workspace_patch', arguments: { path: 'a.txt', oldText: 'A0', newText: 'A1', expectedSha256: null } },
      ],
    },
    { kind: 'reply', text: 'done one' },
    {
      kind: 'reply',
      toolCalls: [
        { name: 'workspace_patch', arguments: { path: 'b.txt', oldText: 'B0', newText: 'B2', expectedSha256: sha('B0\n') } },
        { name: 'workspace_write', arguments: { path: 'a.txt', content: 'A2\n', expectedSha256: sha('A1\n') } },
        { name: 'workspace_delete', arguments: { path: 'd.txt', expectedSha256: sha('D0\n') } },
      ],
    },
    { kind: 'reply', text: 'done two' },
  );
}

describe('rewind', { timeout: 120_000 }, () => {
  let model: ScriptedModel;
  const dirs: string[] = [];
  before(async () => {
    model = await startScriptedModel({ port: 0 });
  });
  after(async () => {
    await model.close();
    for (const dir of dirs) removeDir(dir);
  });

  const start = async (reuse?: TestDaemon): Promise<TestDaemon> => {
    const d = await startTestDaemon({
      ...(reuse ? { home: reuse.home, workspace: reuse.workspace } : { files: FILES }),
      keep: true,
      config: { modelServices: [{ id: 'scripted', baseUrl: model.url, models: [{ id: 'scripted-model' }], defaultModel: 'scripted-model' }] },
    });
    if (!reuse) dirs.push(d.home, d.workspace);
    return d;
  };
  const read = (d: TestDaemon, name: string) => (existsSync(join(d.workspace, name)) ? readFileSync(join(d.workspace, name), 'utf8') : null);
  const state = (d: TestDaemon) => Object.fromEntries(['a.txt', 'b.txt', 'c.txt', 'd.txt'].map((n) => [n, read(d, n)]));
  /** The text of every message after the system prompt, as the model received it. */
  const sent = (request: Record<string, any>): string => JSON.stringify(request.messages.slice(1));

  async function twoTurns(d: TestDaemon): Promise<{ sessionId: string; first: string; second: string; firstBranch: string }> {
    const { sessionId } = await newSession(d, { approvalMode: 'yolo' });
    scriptTwoTurns(model);
    const one = await runTurn(d, sessionId, 'question one');
    const two = await runTurn(d, sessionId, 'question two');
    assert.deepEqual(state(d), { 'a.txt': 'A2\n', 'b.txt': 'B2\n', 'c.txt': 'C1\n', 'd.txt': null }, 'the two turns did their work');
    return { sessionId, first: one.promptId, second: two.promptId, firstBranch: one.terminal.data.branchPoint.checkpointUuid };
  }

  it('turn_complete carries a branch point of two v1-5 UUIDs', async () => {
    const d = await start();
    try {
      const { sessionId } = await newSession(d, { approvalMode: 'yolo' });
      model.enqueue({ kind: 'reply', text: 'hi' });
      const { terminal } = await runTurn(d, sessionId, 'hello');
      const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
      assert.match(terminal.data.branchPoint.assistantRecordUuid, uuid);
      assert.match(terminal.data.branchPoint.checkpointUuid, uuid);
      assert.notEqual(terminal.data.branchPoint.assistantRecordUuid, terminal.data.branchPoint.checkpointUuid);
    } finally {
      await d.close();
    }
  });

  it('the official SDK sees the branch point in its prompt result', async () => {
    const d = await start();
    try {
      const client = new DaemonClient({ baseUrl: d.url });
      const session = await client.createOrAttachSession({ workspaceCwd: d.workspace, sessionScope: 'thread' });
      model.enqueue({ kind: 'reply', text: 'hi' });
      const result = await client.prompt(session.sessionId, { prompt: [{ type: 'text', text: 'hello' }] }, undefined, session.clientId);
      assert.equal(result.stopReason, 'end_turn');
      const branchPoint = (result as { branchPoint?: { checkpointUuid?: string } }).branchPoint;
      assert.ok(branchPoint?.checkpointUuid, `the SDK kept branchPoint: ${JSON.stringify(result)}`);
    } finally {
      await d.close();
    }
  });

  it('rewinding to before the first turn restores every file both turns changed, and the model no longer sees them', async () => {
    const d = await start();
    try {
      const { sessionId, first, second } = await twoTurns(d);
      const res = await d.json('POST', `/session/${sessionId}/rewind`, { promptId: first });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(state(d), { 'a.txt': 'A0\n', 'b.txt': 'B0\n', 'c.txt': null, 'd.txt': 'D0\n' });
      assert.equal(res.body.rewound, true);
      assert.equal(res.body.targetTurnIndex, 0);
      assert.deepEqual([...res.body.filesChanged].sort(), ['a.txt', 'b.txt', 'c.txt', 'd.txt']);
      assert.deepEqual(res.body.filesFailed, []);

      model.enqueue({ kind: 'reply', text: 'fresh' });
      await runTurn(d, sessionId, 'question three');
      const request = sent(model.completions().at(-1)!);
      assert.match(request, /question three/);
      for (const gone of ['question one', 'question two', 'done one', 'done two', 'c.txt', 'B2']) assert.doesNotMatch(request, new RegExp(gone));

      const again = await d.json('POST', `/session/${sessionId}/rewind`, { promptId: second });
      assert.equal(again.status, 404, 'an undone turn is no longer a target');
      assert.equal(again.body.code, 'rewind_target_not_found');

      const transcript = await d.json('GET', `/session/${sessionId}/transcript`);
      const kinds = JSON.stringify(transcript.body);
      assert.match(kinds, /question two/, 'the transcript keeps the undone turns');
      assert.match(kinds, /session_rewound/, 'and the rewind itself');
      const md = await (await d.fetch(`/session/${sessionId}/export?format=md`)).text();
      assert.match(md, /Rewound/);
      assert.match(md, /question two/, 'the export keeps the undone turns too');
    } finally {
      await d.close();
    }
  });

  it('rewinding to a branch point keeps that turn and undoes the later one', async () => {
    const d = await start();
    try {
      const { sessionId, firstBranch } = await twoTurns(d);
      const res = await d.json('POST', `/session/${sessionId}/rewind`, { checkpointUuid: firstBranch });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(state(d), { 'a.txt': 'A1\n', 'b.txt': 'B0\n', 'c.txt': 'C1\n', 'd.txt': 'D0\n' });
      assert.equal(res.body.targetTurnIndex, 1);

      model.enqueue({ kind: 'reply', text: 'fresh' });
      await runTurn(d, sessionId, 'question three');
      const request = sent(model.completions().at(-1)!);
      assert.match(request, /question one/);
      assert.match(request, /done one/);
      assert.doesNotMatch(request, /question two/);
      assert.doesNotMatch(request, /done two/);
    } finally {
      await d.close();
    }
  });

  it('rewindFiles false rewinds only the conversation', async () => {
    const d = await start();
    try {
      const { sessionId, first } = await twoTurns(d);
      const res = await d.json('POST', `/session/${sessionId}/rewind`, { promptId: first, rewindFiles: false });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body.filesChanged, []);
      assert.deepEqual(state(d), { 'a.txt': 'A2\n', 'b.txt': 'B2\n', 'c.txt': 'C1\n', 'd.txt': null }, 'the files stay');
      model.enqueue({ kind: 'reply', text: 'fresh' });
      await runTurn(d, sessionId, 'question three');
      assert.doesNotMatch(sent(model.completions().at(-1)!), /question one|question two/);
    } finally {
      await d.close();
    }
  });

  it('a file changed by someone else refuses the rewind with its name and changes nothing', async () => {
    const d = await start();
    try {
      const { sessionId, first } = await twoTurns(d);
      writeFileSync(join(d.workspace, 'b.txt'), 'edited by hand\n');
      const before = { ...state(d) };
      const res = await d.json('POST', `/session/${sessionId}/rewind`, { promptId: first });
      assert.equal(res.status, 409);
      assert.equal(res.body.code, 'rewind_conflict');
      assert.deepEqual(res.body.files, ['b.txt']);
      assert.deepEqual(state(d), before, 'no file was touched');

      model.enqueue({ kind: 'reply', text: 'still here' });
      await runTurn(d, sessionId, 'question three');
      assert.match(sent(model.completions().at(-1)!), /question two/, 'the conversation was not rewound either');
    } finally {
      await d.close();
    }
  });

  it('rewinds after a daemon restart, and a load after another restart keeps the rewound context', async () => {
    let d = await start();
    const { sessionId, first } = await twoTurns(d);
    await d.close();
    d = await start(d);
    try {
      const res = await d.json('POST', `/session/${sessionId}/rewind`, { promptId: first });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(state(d), { 'a.txt': 'A0\n', 'b.txt': 'B0\n', 'c.txt': null, 'd.txt': 'D0\n' });
    } finally {
      await d.close();
    }
    d = await start(d);
    try {
      assert.equal((await d.json('POST', `/session/${sessionId}/load`, {})).status, 200);
      model.enqueue({ kind: 'reply', text: 'after load' });
      await runTurn(d, sessionId, 'question three');
      const request = sent(model.completions().at(-1)!);
      assert.match(request, /question three/);
      assert.doesNotMatch(request, /question one/);
      assert.doesNotMatch(request, /question two/);
    } finally {
      await d.close();
    }
  });

  it('/rewind as a prompt undoes the last turn, and is listed in available_commands_update', async () => {
    const d = await start();
    try {
      const { sessionId } = await twoTurns(d);
      const { events, terminal } = await runTurn(d, sessionId, '/rewind');
      assert.equal(terminal.type, 'turn_complete');
      const answer = events.find((e) => e.type === 'session_update' && e.data.update._meta?.source === 'slash-command');
      assert.match(answer!.data.update.content.text, /Rewound to turn 1/);
      assert.deepEqual(state(d), { 'a.txt': 'A1\n', 'b.txt': 'B0\n', 'c.txt': 'C1\n', 'd.txt': 'D0\n' });

      const replay = await d.fetch(`/session/${sessionId}/events`, { headers: { 'last-event-id': '0' } });
      const reader = replay.body!.getReader();
      let seen = '';
      while (!seen.includes('replay_complete')) seen += new TextDecoder().decode((await reader.read()).value);
      await reader.cancel();
      const commands = /"availableCommands":(\[.*?\]),"_meta"/.exec(seen)?.[1] ?? '[]';
      assert.ok((JSON.parse(commands) as { name: string }[]).some((c) => c.name === 'rewind'), commands);
    } finally {
      await d.close();
    }
  });

  it('a rewind while a prompt runs is refused with session_busy, and works once the prompt has ended', async () => {
    const d = await start();
    try {
      const { sessionId, first } = await twoTurns(d);
      model.enqueue({ kind: 'hang', text: 'thinking' });
      const running = await d.json('POST', `/session/${sessionId}/prompt`, { prompt: [{ type: 'text', text: 'hangs' }] });
      assert.equal(running.status, 202);
      await eventually(
        () => d.json('GET', `/session/${sessionId}/status`),
        (r) => r.body.hasActivePrompt === true,
      );
      const busy = await d.json('POST', `/session/${sessionId}/rewind`, { promptId: first });
      assert.equal(busy.status, 409);
      assert.equal(busy.body.code, 'session_busy');
      assert.equal(read(d, 'a.txt'), 'A2\n', 'nothing was restored');

      assert.equal((await d.json('POST', `/session/${sessionId}/cancel`, {})).status, 204);
      await eventually(
        () => d.json('GET', `/session/${sessionId}/status`),
        (r) => r.body.hasActivePrompt === false,
      );
      const res = await d.json('POST', `/session/${sessionId}/rewind`, { promptId: first });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(read(d, 'a.txt'), 'A0\n');
    } finally {
      await d.close();
    }
  });

  it('bad input gets a clear 4xx', async () => {
    const d = await start();
    try {
      const { sessionId } = await newSession(d, { approvalMode: 'yolo' });
      const cases: [unknown, number, string][] = [
        [{ promptId: 'no-such-prompt' }, 404, 'rewind_target_not_found'],
        [{ checkpointUuid: '6b6b7822-41b5-4677-9253-9b55de0b648f' }, 404, 'rewind_target_not_found'],
        [{}, 400, 'invalid_rewind_target'],
        [{ promptId: 5 }, 400, 'invalid_rewind_target'],
        [{ promptId: 'a', checkpointUuid: 'b' }, 400, 'invalid_rewind_target'],
        [{ promptId: 'a', rewindFiles: 'yes' }, 400, 'invalid_rewind_target'],
        [{ promptId: 'a', extra: true }, 400, 'invalid_rewind_target'],
      ];
      for (const [body, status, code] of cases) {
        const res = await d.json('POST', `/session/${sessionId}/rewind`, body);
        assert.equal(res.status, status, JSON.stringify(body));
        assert.equal(res.body.code, code, JSON.stringify(body));
      }
      const notJson = await d.fetch(`/session/${sessionId}/rewind`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' });
      assert.equal(notJson.status, 400);
      const unknown = await d.json('POST', `/session/6b6b7822-41b5-4677-9253-9b55de0b648f/rewind`, { promptId: 'x' });
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.code, 'session_not_found');
    } finally {
      await d.close();
    }
  });
});
