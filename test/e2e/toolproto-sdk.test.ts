import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { ConnectRefused, connect, type AppToolSpec, type BerthApp } from '../../src/app/index.js';
import type { ApplicationLink } from '../../src/tools/application-link.js';
import { startTestDaemon, type TestDaemon } from '../support/daemon.js';
import { agentCall, until } from '../support/raw-app.js';

const MiB = 1024 * 1024;
const TEXT = { type: 'object', properties: { text: { type: 'string', maxLength: 20 } }, required: ['text'], additionalProperties: false };

function spec(id: string, policy: AppToolSpec['policy'], handler: AppToolSpec['handler'], inputSchema: Record<string, unknown> = TEXT): AppToolSpec {
  return { id, description: `the ${id} tool`, category: 'sdk', policy, inputSchema, handler };
}

/** The SDK against the real endpoint: what agents see, and what the daemon's raw line gets back. */
describe('berth/app against the daemon', () => {
  let d: TestDaemon;
  let workspaceId: string;
  let app: BerthApp;
  let link: ApplicationLink;
  const registry = () => d.daemon.core.tools.applications;

  before(async () => {
    d = await startTestDaemon();
    workspaceId = d.daemon.core.workspaces.primary().id;
    const token = (await d.daemon.core.tokens.createAppToken('sdk-app', 'write')).token;
    app = await connect(d.url, token, {
      tools: [
        spec('sdk.echo', 'read', ({ text }) => ({ text })),
        spec('sdk.save', 'write', ({ text }) => ({ saved: text })),
        spec('sdk.fail', 'read', () => {
          throw new Error('the handler broke');
        }, { type: 'object' }),
        spec('sdk.big', 'read', () => 'abcdefgh'.repeat(MiB / 8), { type: 'object' }),
      ],
    });
    link = await until(() => registry().list(workspaceId).length === 4 && registry().link(workspaceId, 'sdk-app'));
  });
  after(async () => {
    await app.close();
    await d.close();
  });

  it('publishes its tools for agents with their plain JSON Schemas', () => {
    const echo = registry().get(workspaceId, 'sdk.echo')!;
    assert.equal(echo.policy, 'read');
    assert.equal(echo.inputSchema.additionalProperties, false);
    assert.deepEqual(Object.keys(echo.inputSchema.properties as object), ['text', 'after']);
  });

  it('runs an agent call through workspace_tool and returns the handler result', async () => {
    const outcome = await agentCall(d, 'sdk.echo', { text: 'hello' });
    assert.ok(outcome.ok);
    assert.deepEqual(outcome.result.value, { result: { text: 'hello' } });
  });

  it('gives agents a stable code for each failure: unknown tool, schema violation, guard refusal, unavailable, handler throws', async () => {
    const codes = async (call: Promise<{ ok: boolean; error?: { code: string } }>) => {
      const o = await call;
      return o.ok ? 'ok' : o.error!.code;
    };
    assert.equal(await codes(agentCall(d, 'sdk.missing', {})), 'unknown_tool');
    assert.equal(await codes(agentCall(d, 'sdk.echo', { text: 'far too long for the schema' })), 'invalid_arguments');
    const planMode = d.daemon.core.tools.toolSet({
      workspace: d.daemon.core.workspaces.primary(),
      sessionId: null,
      namespace: 'plan',
      maxPolicy: 'read',
      permission: async () => ({ allow: true }),
    });
    assert.equal(await codes(planMode.call({ callId: 'plan-1', name: 'workspace_tool', args: { name: 'sdk.save', arguments: { text: 'x' } } })), 'policy_denied');
    app.setAvailability('sdk.save', { available: false, reason: 'The document is locked', code: 'locked' });
    await until(() => registry().get(workspaceId, 'sdk.save')!.availability!().available === false);
    assert.equal(await codes(agentCall(d, 'sdk.save', { text: 'x' })), 'tool_unavailable');
    app.setAvailability('sdk.save', null);
    await until(() => registry().get(workspaceId, 'sdk.save')!.availability!().available);
    assert.equal(await codes(agentCall(d, 'sdk.save', { text: 'x' })), 'ok');
    const failed = await agentCall(d, 'sdk.fail', {});
    assert.equal(!failed.ok && failed.error.code, 'tool_failed');
    assert.equal(!failed.ok && failed.error.message, 'the handler broke');
  });

  it("answers the daemon's raw line with the application's own checks: unknown tool, schema, unavailable", async () => {
    assert.equal(((await link.call('sdk.missing', {})) as { error: { code: string } }).error.code, 'unknown_tool');
    assert.equal(((await link.call('sdk.echo', { text: 1 })) as { error: { code: string } }).error.code, 'invalid_arguments');
    app.setAvailability('sdk.echo', { available: false, reason: 'busy' });
    // The raw line skips the daemon's copy; the application evaluates availability again right before running.
    assert.equal(((await link.call('sdk.echo', { text: 'x' })) as { error: { code: string } }).error.code, 'tool_unavailable');
    app.setAvailability('sdk.echo', null);
  });

  it('runs batches that stop at the first failure, or continue on error', async () => {
    const calls = [
      { toolId: 'sdk.echo', arguments: { text: 'one' } },
      { toolId: 'sdk.fail', arguments: {} },
      { toolId: 'sdk.echo', arguments: { text: 'three' } },
    ];
    const stopped = await link.batch({ calls });
    assert.deepEqual([stopped.completed, stopped.requested, stopped.stoppedEarly, stopped.success], [2, 3, true, false]);
    const continued = await link.batch({ calls, continueOnError: true });
    assert.deepEqual(continued.results.map((r) => r.outcome.ok), [true, false, true]);
    assert.deepEqual(continued.results[2]!.outcome, { ok: true, result: { value: { result: { text: 'three' } } } });
  });

  it('brings a 1 MiB result to the agent whole', async () => {
    const outcome = await agentCall(d, 'sdk.big', {});
    assert.ok(outcome.ok);
    assert.equal(((outcome.result.value as { result: string }).result).length, MiB);
  });

  it('ends a call in flight with application_disconnected when the application closes', async () => {
    let running = false;
    const other = await connect(d.url, (await d.daemon.core.tokens.createAppToken('closing-app', 'write')).token, {
      tools: [spec('closing.wait', 'write', () => ((running = true), new Promise(() => undefined)), { type: 'object' })],
    });
    await until(() => registry().get(workspaceId, 'closing.wait')?.availability!().available);
    const outcome = agentCall(d, 'closing.wait', {});
    await until(() => running);
    await other.close();
    const done = await outcome;
    assert.equal(!done.ok && done.error.code, 'application_disconnected');
    assert.equal(registry().get(workspaceId, 'closing.wait')!.availability!().code, 'application_disconnected');
  });

  it('connects the way a browser does: global WebSocket, the token as a subprotocol', async () => {
    const global = globalThis as { WebSocket?: unknown };
    const saved = global.WebSocket;
    global.WebSocket = WebSocket;
    try {
      const browserApp = await connect(d.url, (await d.daemon.core.tokens.createAppToken('browser-app', 'read')).token, {
        transport: 'browser',
        tools: [spec('browser.title', 'read', () => 'Berth', { type: 'object' })],
      });
      await until(() => registry().get(workspaceId, 'browser.title'));
      const outcome = await agentCall(d, 'browser.title', {});
      assert.ok(outcome.ok);
      assert.deepEqual(outcome.result.value, { result: 'Berth' });
      await browserApp.close();
    } finally {
      global.WebSocket = saved;
    }
  });

  it('rejects connect with the status and code the daemon refused with', async () => {
    await assert.rejects(connect(d.url, 'berth_app_wrong'), (err: unknown) => err instanceof ConnectRefused && err.status === 401);
  });
});
