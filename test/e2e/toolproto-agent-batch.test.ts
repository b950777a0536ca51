import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EventReader, newSession, optionOf, submit, type WireEvent } from '../support/session-client.js';
import { RawApp, serveCatalog, until, type RawTool } from '../support/raw-app.js';
import { startStack, type Stack } from '../support/stack.js';

const BATCH = 'workspace_tool_batch';

/**
 * Seed 003's `tool.batch`, reached end to end from the built-in agent: the
 * scripted model calls `workspace_tool_batch`, the daemon checks every call
 * (schema, guard, permission for the write) before anything is sent, and the
 * application receives the calls as one `tool.batch` frame.
 */
describe('an agent sends a tool.batch', () => {
  let stack: Stack;
  let app: RawApp;
  let other: RawApp;
  const tools: RawTool[] = [{ id: 'raw.read' }, { id: 'raw.write', policy: 'write' }];

  before(async () => {
    stack = await startStack();
    const core = stack.daemon.daemon.core;
    app = await RawApp.connect(stack.daemon, (await core.tokens.createAppToken('batcher', 'write')).token);
    await serveCatalog(app, tools);
    other = await RawApp.connect(stack.daemon, (await core.tokens.createAppToken('other', 'read')).token);
    await serveCatalog(other, [{ id: 'other.read' }]);
    const workspaceId = core.workspaces.primary().id;
    await until(() => core.tools.applications.get(workspaceId, 'raw.write') && core.tools.applications.get(workspaceId, 'other.read'));
  });
  after(async () => {
    await app?.close();
    await other?.close();
    await stack.close();
  });

  /** One prompt in a default-mode session whose model makes one batch call; each permission request gets `vote`. */
  async function batchTurn(args: Record<string, unknown>, vote: 'allow_once' | 'reject_once' = 'allow_once') {
    const d = stack.daemon;
    const { sessionId } = await newSession(d, { approvalMode: 'default' });
    const events = await EventReader.open(d, sessionId);
    stack.model.enqueue({ kind: 'reply', toolCalls: [{ id: 'batch', name: BATCH, arguments: args }] }, { kind: 'reply', text: 'done' });
    const { promptId } = (await submit(d, sessionId, 'do both')).body;
    const asked: WireEvent[] = [];
    for (;;) {
      const e = await events.until((x) => (x.type === 'permission_request' && !asked.includes(x)) || x.type === 'turn_complete' || x.type === 'turn_error');
      if (e.type !== 'permission_request') break;
      asked.push(e);
      await d.json('POST', `/session/${sessionId}/permission/${e.data.requestId}`, { outcome: { outcome: 'selected', optionId: optionOf(e, vote) } });
    }
    events.close();
    assert.ok(promptId);
    const tool = (stack.model.completions().at(-1)!.messages as { role: string; content: string }[]).find((m) => m.role === 'tool')!;
    return { asked, seen: JSON.parse(tool.content) };
  }

  it('the app receives one tool.batch frame holding both calls, after the write was allowed, and the model reads both results', async () => {
    const answered = (async () => {
      const frame = await app.nextOfType('tool.batch');
      app.answer(frame, 'tool.batch.result', {
        success: true,
        completed: 2,
        requested: 2,
        stoppedEarly: false,
        results: [
          { index: 0, callId: 'look', toolId: 'raw.read', success: true, result: 'looked' },
          { index: 1, toolId: 'raw.write', success: true, result: 'wrote' },
        ],
      });
      return frame;
    })();
    const { asked, seen } = await batchTurn({
      calls: [
        { name: 'raw.read', arguments: { text: 'a' }, callId: 'look' },
        { name: 'raw.write', arguments: { text: 'b' } },
      ],
    });
    assert.deepEqual(
      asked.map((e) => [e.data.toolCall._meta.toolName, e.data.toolCall._meta.targetTool]),
      [[BATCH, 'raw.write']],
      'one question, for the write only',
    );
    const frame = await answered;
    assert.deepEqual(frame.payload.calls, [
      { callId: 'look', toolId: 'raw.read', arguments: { text: 'a' } },
      { toolId: 'raw.write', arguments: { text: 'b' } },
    ]);
    assert.equal(app.received.filter((f) => f.type === 'tool.batch').length, 1);
    assert.equal(app.received.filter((f) => f.type === 'tool.call').length, 0, 'no call went alone');
    assert.equal(seen.success, true);
    assert.deepEqual(
      seen.results.map((r: { index: number; name: string; ok: boolean; result: unknown }) => [r.index, r.name, r.ok, r.result]),
      [
        [0, 'raw.read', true, 'looked'],
        [1, 'raw.write', true, 'wrote'],
      ],
    );
  });

  it('sends nothing when a call is refused before the batch: another application, wrong arguments, a rejected write', async () => {
    const before = app.received.length;
    const mixed = await batchTurn({ calls: [{ name: 'raw.read', arguments: {} }, { name: 'other.read', arguments: {} }] });
    assert.equal(mixed.seen.error.code, 'invalid_arguments');
    assert.match(mixed.seen.error.message, /one application/);
    const wrong = await batchTurn({ calls: [{ name: 'raw.read', arguments: {} }, { name: 'raw.write', arguments: { text: 5 } }] });
    assert.equal(wrong.seen.error.code, 'invalid_arguments');
    assert.equal(wrong.asked.length, 0, 'nothing is asked about a batch that cannot run');
    const rejected = await batchTurn({ calls: [{ name: 'raw.read', arguments: {} }, { name: 'raw.write', arguments: {} }] }, 'reject_once');
    assert.equal(rejected.asked.length, 1);
    assert.equal(rejected.seen.error.code, 'permission_rejected');
    assert.equal(app.received.length, before, 'the application received no frame at all');
    assert.equal(other.received.filter((f) => f.type === 'tool.batch').length, 0);
  });
});
