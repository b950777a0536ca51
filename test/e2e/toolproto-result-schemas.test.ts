import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connect, type BerthApp } from '../../src/app/index.js';
import { agentTurn } from '../support/agent-turn.js';
import { RawApp, serveCatalog, until, type RawTool } from '../support/raw-app.js';
import { startStack, type Stack } from '../support/stack.js';

const COUNT = { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'], additionalProperties: false };
const MODE = { type: 'object', properties: { mode: { enum: ['good', 'bad'] } }, required: ['mode'], additionalProperties: false };
const via = (id: string, name: string, args: Record<string, unknown>) => ({ id, name: 'workspace_tool', arguments: { name, arguments: args } });

/**
 * Seed 003: results are validated against a tool's output schema when it
 * publishes one, by the `berth/app` SDK before it answers and by the daemon
 * when it receives the answer. A result that does not match reaches the agent
 * as `tool_failed` with `details.outputSchema`; a tool with no output schema
 * returns whatever it likes, as before. Real daemon, real sockets, the
 * scripted model making the calls.
 */
describe('tool results are checked against the output schema', () => {
  let stack: Stack;
  let sdk: BerthApp;
  let raw: RawApp;
  let workspaceId: string;
  const registry = () => stack.daemon.daemon.core.tools.applications;

  before(async () => {
    stack = await startStack();
    workspaceId = stack.daemon.daemon.core.workspaces.primary().id;
    const tokens = stack.daemon.daemon.core.tokens;
    sdk = await connect(stack.daemon.url, (await tokens.createAppToken('sdk-shapes', 'read')).token, {
      tools: [
        {
          id: 'sdk.count',
          description: 'counts',
          category: 'shapes',
          policy: 'read',
          inputSchema: MODE,
          outputSchema: COUNT,
          handler: ({ mode }) => (mode === 'good' ? { count: 3 } : { count: 'three' }),
        },
        { id: 'sdk.free', description: 'anything', category: 'shapes', policy: 'read', inputSchema: { type: 'object' }, handler: () => ({ count: 'three' }) },
      ],
    });
    raw = await RawApp.connect(stack.daemon, (await tokens.createAppToken('raw-shapes', 'read')).token);
    const rawTools: RawTool[] = [{ id: 'raw.count', inputSchema: MODE, extra: { outputSchema: { ...COUNT, additionalProperties: undefined } } }];
    await serveCatalog(raw, rawTools);
    // A foreign application that does not check its own results: the daemon must.
    void (async () => {
      for (;;) {
        const call = await raw.nextOfType('tool.call');
        const result = call.payload.arguments.mode === 'good' ? { count: 3 } : { count: 'three' };
        raw.answer(call, 'tool.result', { toolId: call.payload.toolId, success: true, result });
      }
    })();
    await until(() => registry().get(workspaceId, 'sdk.free') && registry().get(workspaceId, 'raw.count'));
  });
  after(async () => {
    await sdk?.close();
    await raw?.close();
    await stack.close();
  });

  it('publishes the output schema in the catalog the daemon keeps', () => {
    assert.deepEqual(registry().get(workspaceId, 'sdk.count')!.outputSchema, COUNT);
    assert.deepEqual(registry().get(workspaceId, 'raw.count')!.outputSchema, COUNT, 'a closed object on the wire is closed here');
    assert.equal(registry().get(workspaceId, 'sdk.free')!.outputSchema, undefined);
  });

  it('a matching result reaches the agent; one that does not is tool_failed, from the SDK and from the daemon alike', async () => {
    const seen = await agentTurn(stack, [
      via('sdk-good', 'sdk.count', { mode: 'good' }),
      via('sdk-bad', 'sdk.count', { mode: 'bad' }),
      via('raw-good', 'raw.count', { mode: 'good' }),
      via('raw-bad', 'raw.count', { mode: 'bad' }),
    ]);
    assert.deepEqual(seen['sdk-good'].result, { count: 3 });
    assert.deepEqual(seen['raw-good'].result, { count: 3 });
    for (const id of ['sdk-bad', 'raw-bad']) {
      const error = seen[id].error;
      assert.equal(error?.code, 'tool_failed', `${id}: ${JSON.stringify(seen[id])}`);
      assert.equal(error.details.outputSchema, true, id);
      assert.equal(error.details.field, 'count', id);
      assert.match(error.message, /does not match its outputSchema: `count` must be integer/, id);
    }
  });

  it('a tool without an output schema returns what it likes', async () => {
    const seen = await agentTurn(stack, [via('free', 'sdk.free', {})]);
    assert.deepEqual(seen.free.result, { count: 'three' });
  });

  it('the daemon\'s raw line to an application checks a direct call the same way', async () => {
    const link = registry().link(workspaceId, 'raw-shapes')!;
    assert.equal((await link.call('raw.count', { mode: 'good' })).ok, true);
    const bad = await link.call('raw.count', { mode: 'bad' });
    assert.equal(bad.ok, false);
    assert.equal(!bad.ok && bad.error.code, 'tool_failed');
  });
});
