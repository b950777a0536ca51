import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { BerthError } from '../../../src/protocol/errors/index.js';
import { allowWithoutAsking, type PermissionRequest } from '../../../src/tools/permission.js';
import { ToolService } from '../../../src/tools/service.js';
import type { Policy, ToolOutcome } from '../../../src/tools/types.js';
import { countingTool, fakeWorkspace, fixedClock, tempStore } from '../../support/tools.js';

const workspace = fakeWorkspace();

describe('workspace_tools and workspace_tool over application tools', () => {
  let s: ReturnType<typeof tempStore>;
  let service: ToolService;
  let asked: PermissionRequest[];
  const capture = countingTool('map.capture', { category: 'map', description: 'Capture the current map' });
  const pin = countingTool('map.pin', { category: 'map', policy: 'write', description: 'Drop a pin' });
  const wipe = countingTool('app.wipe', { category: 'app', policy: 'critical', description: 'Erase the app data' });

  beforeEach(() => {
    s = tempStore();
    service = new ToolService({ journal: s.journal, clock: fixedClock() });
    service.applications.publish(workspace.id, 'maps-app', [capture, pin, wipe]);
    asked = [];
    capture.runs = pin.runs = wipe.runs = 0;
  });
  afterEach(() => s.close());

  const setFor = (maxPolicy: Policy) =>
    service.toolSet({
      workspace,
      sessionId: 's1',
      namespace: 'session:s1',
      maxPolicy,
      permission: async (r) => (asked.push(r), { allow: true }),
    });

  const listed = async (maxPolicy: Policy) => {
    const outcome = await setFor(maxPolicy).call({ callId: 'l1', name: 'workspace_tools', args: {} });
    assert.ok(outcome.ok);
    return (outcome.result.value as { tools: { name: string; policy: string; inputSchema: unknown }[] }).tools;
  };

  const code = (o: ToolOutcome) => (o.ok ? undefined : o.error.code);

  it('lists the application tools the guard allows, with exact names, policies and schemas', async () => {
    const all = await listed('critical');
    assert.deepEqual(all.map((t) => [t.name, t.policy]), [
      ['app.wipe', 'critical'],
      ['map.capture', 'read'],
      ['map.pin', 'write'],
    ]);
    assert.deepEqual(all[1]!.inputSchema, capture.inputSchema, 'plain JSON Schema, as published');
    assert.deepEqual((await listed('read')).map((t) => t.name), ['map.capture']);
  });

  it('offers both workspace tools under every guard', () => {
    for (const p of ['read', 'write', 'critical'] as const) {
      const names = setFor(p).definitions().map((d) => d.name);
      assert.ok(names.includes('workspace_tools') && names.includes('workspace_tool'), p);
    }
  });

  it('invokes a target with the target policy: guard, permission and receipts apply as for the target', async () => {
    const denied = await setFor('read').call({ callId: 'c1', name: 'workspace_tool', args: { name: 'map.pin', arguments: {} } });
    assert.equal(code(denied), 'policy_denied');
    assert.equal(pin.runs, 0);

    const readSet = setFor('read');
    const read = await readSet.call({ callId: 'c2', name: 'workspace_tool', args: { name: 'map.capture', arguments: { text: 'x' } } });
    assert.ok(read.ok);
    assert.deepEqual(read.result.value, { echoed: 'x', run: 1 });
    assert.equal(asked.length, 0, 'a read target runs unasked');

    const set = setFor('critical');
    const call = { callId: 'c3', name: 'workspace_tool', args: { name: 'map.pin', arguments: { text: 'here' } } };
    const first = await set.call(call);
    const again = await set.call(call);
    assert.ok(first.ok && again.ok && again.replayed);
    assert.equal(pin.runs, 1);
    assert.equal(asked.length, 1);
    assert.equal(asked[0]!.tool.name, 'map.pin');
    assert.equal(asked[0]!.via, 'workspace_tool');
    assert.deepEqual(asked[0]!.args, { text: 'here' });
  });

  it('validates the target arguments against the target schema', async () => {
    const outcome = await setFor('critical').call({
      callId: 'c4',
      name: 'workspace_tool',
      args: { name: 'map.capture', arguments: { text: 'much too long here' } },
    });
    assert.equal(code(outcome), 'invalid_arguments');
    assert.equal(!outcome.ok && outcome.error.details?.field, 'text');
  });

  it('answers an unknown target with unknown_tool', async () => {
    const outcome = await setFor('critical').call({ callId: 'c5', name: 'workspace_tool', args: { name: 'nope', arguments: {} } });
    assert.equal(code(outcome), 'unknown_tool');
  });

  it('keeps a disconnected application’s tools listed but unavailable until it publishes again', async () => {
    service.applications.disconnect(workspace.id, 'maps-app');
    const tools = await listed('critical');
    const entry = tools.find((t) => t.name === 'map.capture') as unknown as { runtime: { code: string } };
    assert.equal(entry.runtime.code, 'application_disconnected');
    const refused = await setFor('critical').call({ callId: 'c6', name: 'workspace_tool', args: { name: 'map.capture', arguments: {} } });
    assert.equal(code(refused), 'tool_unavailable');
    service.applications.publish(workspace.id, 'maps-app', [capture]);
    const back = await setFor('critical').call({ callId: 'c7', name: 'workspace_tool', args: { name: 'map.capture', arguments: {} } });
    assert.ok(back.ok);
    assert.deepEqual((await listed('critical')).map((t) => t.name), ['map.capture'], 'a publication replaces the previous one');
  });

  it('records availability an application reports, per tool', async () => {
    service.applications.setAvailability(workspace.id, 'maps-app', 'map.capture', { available: false, code: 'map_not_loaded' });
    const set = setFor('critical');
    const catalog = set.catalog({ detail: 'index' });
    const entry = (catalog.tools as Record<string, unknown>[]).find((t) => t.id === 'workspace_tools');
    assert.ok(entry, 'the tool set catalog lists the workspace tools themselves');
    const refused = await set.call({ callId: 'c8', name: 'workspace_tool', args: { name: 'map.capture', arguments: {} } });
    assert.equal(code(refused), 'tool_unavailable');
    service.applications.setAvailability(workspace.id, 'maps-app', 'map.capture', null);
    assert.ok((await set.call({ callId: 'c9', name: 'workspace_tool', args: { name: 'map.capture', arguments: {} } })).ok);
  });

  it('refuses a publication whole when a name is taken by another application or a schema is broken', () => {
    const isCode = (c: string) => (err: unknown) => err instanceof BerthError && err.code === c;
    assert.throws(() => service.applications.publish(workspace.id, 'other-app', [countingTool('other.ok'), countingTool('map.pin')]), isCode('tool_name_conflict'));
    assert.equal(service.applications.get(workspace.id, 'other.ok'), undefined, 'nothing of a refused publication is kept');
    assert.throws(
      () => service.applications.publish(workspace.id, 'other-app', [countingTool('other.bad', { inputSchema: { type: 'no-such-type' } })]),
      isCode('invalid_request'),
    );
    assert.throws(() => service.applications.publish(workspace.id, 'other-app', [countingTool('x'), countingTool('x')]), isCode('invalid_request'));
    service.applications.withdraw(workspace.id, 'maps-app');
    service.applications.publish(workspace.id, 'other-app', [countingTool('map.pin')]);
    assert.ok(service.applications.get(workspace.id, 'map.pin'));
  });

  it('keeps application tools of one workspace out of another', async () => {
    const other = { ...workspace, id: 'ws-other' };
    const outcome = await service
      .toolSet({ workspace: other, sessionId: null, namespace: 'x', permission: allowWithoutAsking })
      .call({ callId: 'c10', name: 'workspace_tools', args: {} });
    assert.ok(outcome.ok);
    assert.deepEqual(outcome.result.value, { tools: [] });
  });
});
