import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connect, type BerthApp } from '../../src/app/index.js';
import { agentTurn } from '../support/agent-turn.js';
import { RawApp, serveCatalog, until } from '../support/raw-app.js';
import { startStack, type Stack } from '../support/stack.js';

const TEXT = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false };
const via = (id: string, name: string, args: Record<string, unknown>) => ({ id, name: 'workspace_tool', arguments: { name, arguments: args } });

/**
 * Seed 003: a tool that declares `argumentEncoding: "flattened-string"`
 * receives its arguments as one string — the compact JSON text of the
 * arguments object — while the wire still carries an object (`arguments must
 * be a JSON object`) checked against the input schema. JSON tools receive the
 * object, as before.
 */
describe('flattened-string tools receive a string', () => {
  let stack: Stack;
  let sdk: BerthApp;
  let workspaceId: string;
  const received: unknown[] = [];
  const registry = () => stack.daemon.daemon.core.tools.applications;

  before(async () => {
    stack = await startStack();
    workspaceId = stack.daemon.daemon.core.workspaces.primary().id;
    sdk = await connect(stack.daemon.url, (await stack.daemon.daemon.core.tokens.createAppToken('legacy', 'read')).token, {
      tools: [
        {
          id: 'legacy.echo',
          description: 'an older tool that parses its own arguments',
          category: 'legacy',
          policy: 'read',
          inputSchema: TEXT,
          argumentEncoding: 'flattened-string',
          handler: (args, ctx) => {
            received.push(args);
            return { type: typeof args, text: args, callId: typeof ctx.callId };
          },
        },
        {
          id: 'legacy.json',
          description: 'a native JSON tool',
          category: 'legacy',
          policy: 'read',
          inputSchema: TEXT,
          handler: (args) => {
            received.push(args);
            return { type: typeof args, text: args.text };
          },
        },
      ],
    });
    await until(() => registry().get(workspaceId, 'legacy.json'));
  });
  after(async () => {
    await sdk?.close();
    await stack.close();
  });

  it('the SDK publishes the encoding and the daemon keeps it; JSON tools publish none', () => {
    assert.equal(registry().get(workspaceId, 'legacy.echo')!.argumentEncoding, 'flattened-string');
    assert.equal(registry().get(workspaceId, 'legacy.json')!.argumentEncoding, undefined);
  });

  it('an agent call reaches the flattened tool as the JSON text of its arguments, and the JSON tool as an object', async () => {
    received.length = 0;
    const seen = await agentTurn(stack, [via('flat', 'legacy.echo', { text: 'hi "there"' }), via('json', 'legacy.json', { text: 'hi' })]);
    assert.deepEqual(seen.flat.result, { type: 'string', text: '{"text":"hi \\"there\\""}', callId: 'string' });
    assert.deepEqual(seen.json.result, { type: 'object', text: 'hi' });
    assert.deepEqual(received, ['{"text":"hi \\"there\\""}', { text: 'hi' }]);
  });

  it('arguments that do not match the input schema are refused before the handler sees a string', async () => {
    received.length = 0;
    const seen = await agentTurn(stack, [via('wrong', 'legacy.echo', { text: 7 })]);
    assert.equal(seen.wrong.error?.code, 'invalid_arguments', JSON.stringify(seen.wrong));
    assert.deepEqual(received, []);
  });

  it('to a foreign application declaring flattened-string, the daemon still sends an arguments object', async () => {
    const raw = await RawApp.connect(stack.daemon, (await stack.daemon.daemon.core.tokens.createAppToken('foreign', 'read')).token);
    try {
      await serveCatalog(raw, [{ id: 'foreign.echo', inputSchema: TEXT, extra: { argumentEncoding: 'flattened-string' } }]);
      await until(() => registry().get(workspaceId, 'foreign.echo'));
      const answered = (async () => {
        const call = await raw.nextOfType('tool.call');
        raw.answer(call, 'tool.result', { toolId: 'foreign.echo', success: true, result: 'ok' });
        return call;
      })();
      const seen = await agentTurn(stack, [via('foreign', 'foreign.echo', { text: 'hi' })]);
      assert.equal(seen.foreign.result, 'ok');
      assert.deepEqual((await answered).payload.arguments, { text: 'hi' });
    } finally {
      await raw.close();
    }
  });
});
