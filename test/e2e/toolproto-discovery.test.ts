import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MAX_APP_CONNECTIONS } from '../../src/toolproto/limits.js';
import { CATALOG_SCHEMA } from '../../src/protocol/tools/catalog.js';
import { BEARER_SUBPROTOCOL_PREFIX, TOOL_SUBPROTOCOL } from '../../src/protocol/toolproto/subprotocol.js';
import { startTestDaemon, type TestDaemon } from '../support/daemon.js';
import { RawApp, agentCall, indexAnswer, definitionsAnswer, serveCatalog, until, type Refusal, type RawTool } from '../support/raw-app.js';

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => assert.fail('the upgrade was accepted'),
    (r: Refusal) => r,
  );

describe('tool protocol endpoint: who may connect', () => {
  let d: TestDaemon;
  let appToken: string;
  before(async () => {
    d = await startTestDaemon({ config: { allowOrigins: ['http://allowed.example'] } });
    appToken = (await d.daemon.core.tokens.createAppToken('admission', 'read')).token;
  });
  after(() => d.close());

  it('refuses an upgrade without a token with 401 token_required', async () => {
    const r = await refusal(RawApp.connect(d, null));
    assert.equal(r.status, 401);
    assert.equal(r.body.code, 'token_required');
  });

  it('refuses an unknown token with 401 and a channel token with 403 token_scope_denied', async () => {
    assert.equal((await refusal(RawApp.connect(d, 'berth_app_not-a-real-token'))).status, 401);
    const channel = (await d.daemon.core.tokens.createChannelToken('some-workspace')).token;
    const r = await refusal(RawApp.connect(d, channel));
    assert.equal(r.status, 403);
    assert.equal(r.body.code, 'token_scope_denied');
  });

  it('refuses a token in the query string', async () => {
    const r = await refusal(RawApp.connect(d, appToken, { query: `?token=${appToken}` }));
    assert.equal(r.status, 400);
    assert.equal(r.body.code, 'credentials_in_query');
  });

  it('refuses a browser Origin that is not allow-listed and admits one that is', async () => {
    const r = await refusal(RawApp.connect(d, appToken, { headers: { origin: 'http://evil.example' } }));
    assert.equal(r.status, 403);
    assert.equal(r.body.code, 'cors_denied');
    const app = await RawApp.connect(d, appToken, { headers: { origin: 'http://allowed.example' } });
    await app.close();
  });

  it('refuses a workspace that is not registered', async () => {
    const r = await refusal(RawApp.connect(d, appToken, { query: '?workspace=no-such-workspace' }));
    assert.equal(r.status, 400);
    assert.equal(r.body.code, 'workspace_mismatch');
  });

  it('admits a token offered as the berth.bearer subprotocol and selects only berth.tools.v1', async () => {
    const app = await RawApp.connect(d, null, { protocols: [TOOL_SUBPROTOCOL, BEARER_SUBPROTOCOL_PREFIX + appToken] });
    assert.equal(app.ws.protocol, TOOL_SUBPROTOCOL, 'the token is never echoed back');
    const query = await app.nextOfType('tool.query');
    assert.equal(query.payload.maxToolPolicy, 'read');
    await app.close();
  });

  it(`refuses the application past ${MAX_APP_CONNECTIONS} connected ones with 429 and Retry-After, and admits it again once one leaves`, async () => {
    // Distinct applications: a second connection of the same one replaces the first instead of adding to the count.
    const created = await Promise.all(Array.from({ length: MAX_APP_CONNECTIONS + 1 }, (_, i) => d.daemon.core.tokens.createAppToken(`crowd-${i}`, 'read')));
    const tokens = created.map((c) => c.token);
    const apps = await Promise.all(tokens.slice(0, MAX_APP_CONNECTIONS).map((t) => RawApp.connect(d, t)));
    try {
      const r = await refusal(RawApp.connect(d, tokens[MAX_APP_CONNECTIONS]!));
      assert.equal(r.status, 429);
      assert.equal(r.body.code, 'application_limit_exceeded');
      assert.equal(r.body.retryAfterSeconds, 5);
      await apps.pop()!.close();
      await until(async () => RawApp.connect(d, tokens[MAX_APP_CONNECTIONS]!).then((app) => (apps.push(app), true), () => false));
    } finally {
      await Promise.all(apps.map((app) => app.close()));
    }
  });

  it('refuses a berth.bearer subprotocol offered without berth.tools.v1', async () => {
    const r = await refusal(RawApp.connect(d, null, { protocols: [BEARER_SUBPROTOCOL_PREFIX + appToken] }));
    assert.equal(r.status, 400);
  });
});

describe('tool protocol discovery: the daemon asks, the application answers', () => {
  let d: TestDaemon;
  let token: string;
  let workspaceId: string;
  const registry = () => d.daemon.core.tools.applications;
  const TOOLS: RawTool[] = [
    { id: 'ui.tap', policy: 'write', inputSchema: { type: 'object', properties: { node: { type: 'string' } }, required: ['node'] } },
    { id: 'ui.query', policy: 'read' },
  ];

  before(async () => {
    d = await startTestDaemon();
    token = (await d.daemon.core.tokens.createAppToken('ui-app', 'write')).token;
    workspaceId = d.daemon.core.workspaces.primary().id;
  });
  after(() => d.close());

  it('queries the index, then the definitions by id, and publishes the tools in the primary workspace', async () => {
    const app = await RawApp.connect(d, token);
    const { index, definitions } = await serveCatalog(app, TOOLS);
    assert.equal(index.type, 'tool.query');
    assert.equal(index.capability, 'tool.exec');
    assert.equal(typeof index.sentAt, 'string');
    assert.deepEqual(index.payload, { detail: 'index', maxToolPolicy: 'write' }, 'a first query carries no revisions');
    assert.deepEqual([...definitions!.payload.ids].sort(), ['ui.query', 'ui.tap']);
    const tools = await until(() => registry().list(workspaceId).length === 2 && registry().list(workspaceId));
    const tap = tools.find((t) => t.name === 'ui.tap')!;
    assert.equal(tap.policy, 'write');
    // Seed 003 schemas omit `additionalProperties: false`; the daemon reads them back as closed objects.
    assert.equal(tap.inputSchema.additionalProperties, false);
    assert.deepEqual(tap.inputSchema.required, ['node']);
    assert.deepEqual(tap.availability!(), { available: true });
    await app.close();
    await until(() => registry().get(workspaceId, 'ui.tap')!.availability!().available === false);
    assert.equal(registry().get(workspaceId, 'ui.tap')!.availability!().code, 'application_disconnected');
  });

  it('a reconnecting application costs one index query: definitions are cached by their revision', async () => {
    const app = await RawApp.connect(d, token);
    await serveCatalog(app, TOOLS, 'sha256:catalog-1', false);
    await until(() => registry().get(workspaceId, 'ui.tap')!.availability!().available);
    assert.equal(app.received.filter((f) => f.payload?.detail === 'definitions').length, 0);
    await app.close();
  });

  it('asks only for the definitions whose revision changed when the application announces a new index', async () => {
    const app = await RawApp.connect(d, token);
    await serveCatalog(app, TOOLS, 'sha256:catalog-1', false);
    await until(() => registry().get(workspaceId, 'ui.tap')!.availability!().available);
    const changed: RawTool[] = [{ ...TOOLS[0]!, revision: 'sha256:ui.tap-2', policy: 'read' }, TOOLS[1]!, { id: 'ui.scroll' }];
    // An unsolicited tool.catalog (no replyTo) is how an application announces a change.
    app.send({ type: 'tool.catalog', id: 'announce-1', payload: indexAnswer(changed, 'sha256:catalog-2') });
    const definitions = await app.nextOfType('tool.query', (f) => f.payload?.detail === 'definitions');
    assert.deepEqual([...definitions.payload.ids].sort(), ['ui.scroll', 'ui.tap']);
    app.answer(definitions, 'tool.catalog', definitionsAnswer(changed, definitions.payload.ids, 'sha256:catalog-2'));
    await until(() => registry().get(workspaceId, 'ui.scroll'));
    assert.equal(registry().get(workspaceId, 'ui.tap')!.policy, 'read');
    await app.close();
  });

  it('refreshes with both revisions; an unchanged answer keeps the tools, an availability-only answer applies its changes', async () => {
    const app = await RawApp.connect(d, token);
    await serveCatalog(app, TOOLS, 'sha256:catalog-1', false);
    const link = await until(() => registry().link(workspaceId, 'ui-app'));
    const before = registry().get(workspaceId, 'ui.query');

    // An application that answers tool_unavailable makes the daemon bring its copy up to date.
    const call = agentCall(d, 'ui.query', {});
    const sent = await app.nextOfType('tool.call');
    app.answer(sent, 'tool.error', { code: 'tool_unavailable', message: 'screen locked', retryable: true });
    assert.equal((await call).ok, false);
    const refresh = await app.nextOfType('tool.query');
    assert.deepEqual(refresh.payload, {
      detail: 'index',
      ifRevision: 'sha256:catalog-1',
      ifAvailabilityRevision: 'sha256:avail-1',
      maxToolPolicy: 'write',
    });
    app.answer(refresh, 'tool.catalog', { schema: CATALOG_SCHEMA, revision: 'sha256:catalog-1', unchanged: true });

    app.send({
      type: 'tool.catalog',
      id: 'announce-availability',
      payload: {
        schema: CATALOG_SCHEMA,
        revision: 'sha256:catalog-1',
        unchanged: true,
        availabilityRevision: 'sha256:avail-2',
        evaluatedAtUtc: new Date().toISOString(),
        changes: { 'ui.tap': { available: false, code: 'screen_locked', reason: 'The screen is locked', retryable: true } },
      },
    });
    const locked = await until(() => {
      const a = registry().get(workspaceId, 'ui.tap')!.availability!();
      return a.available === false && a;
    });
    assert.deepEqual(locked, { available: false, code: 'screen_locked', reason: 'The screen is locked', retryable: true });
    assert.equal(registry().get(workspaceId, 'ui.query'), before, 'the unchanged catalog was not republished');
    const refused = await agentCall(d, 'ui.tap', { node: 'save' });
    assert.equal(refused.ok, false);
    assert.equal(!refused.ok && refused.error.code, 'tool_unavailable', 'checked right before the call, without sending it');
    assert.equal(app.received.filter((f) => f.type === 'tool.call').length, 1);

    // `changes` is a replacement snapshot: an empty one makes every tool available again.
    app.send({
      type: 'tool.catalog',
      id: 'announce-available',
      payload: { schema: CATALOG_SCHEMA, revision: 'sha256:catalog-1', unchanged: true, availabilityRevision: 'sha256:avail-3', changes: {} },
    });
    await until(() => registry().get(workspaceId, 'ui.tap')!.availability!().available);
    assert.ok(link);
    await app.close();
  });

  it('lets a newer connection of the same application replace the older one (4000) without the old close marking it gone', async () => {
    const older = await RawApp.connect(d, token);
    await serveCatalog(older, TOOLS, 'sha256:catalog-1', false);
    await until(() => registry().get(workspaceId, 'ui.query')!.availability!().available);
    const newer = await RawApp.connect(d, token);
    assert.equal((await older.closed).code, 4000);
    await serveCatalog(newer, TOOLS, 'sha256:catalog-1', false);
    await until(() => registry().get(workspaceId, 'ui.query')!.availability!().available);
    const outcome = agentCall(d, 'ui.query', {});
    const call = await newer.nextOfType('tool.call');
    newer.answer(call, 'tool.result', { toolId: 'ui.query', success: true, result: 'from the newer connection' });
    const settled = await outcome;
    assert.ok(settled.ok, JSON.stringify(settled));
    assert.deepEqual(settled.result.value, { result: 'from the newer connection' });
    await newer.close();
  });

  it('leaves out tools above the token policy and tells the application', async () => {
    const readOnly = (await d.daemon.core.tokens.createAppToken('read-app', 'read')).token;
    const app = await RawApp.connect(d, readOnly);
    await serveCatalog(app, [
      { id: 'ro.look', policy: 'read' },
      { id: 'ro.erase', policy: 'critical' },
    ]);
    const notice = await app.nextOfType('tool.error', (f) => f.replyTo === undefined);
    assert.equal(notice.payload.code, 'policy_denied');
    assert.deepEqual(notice.payload.details.tools, ['ro.erase']);
    await until(() => registry().get(workspaceId, 'ro.look'));
    assert.equal(registry().get(workspaceId, 'ro.erase'), undefined);
    await app.close();
  });

  it('refuses a catalog naming a tool another application publishes, and says why', async () => {
    const first = await RawApp.connect(d, (await d.daemon.core.tokens.createAppToken('first', 'read')).token);
    await serveCatalog(first, [{ id: 'shared.name' }]);
    await until(() => registry().get(workspaceId, 'shared.name'));
    const second = await RawApp.connect(d, (await d.daemon.core.tokens.createAppToken('second', 'read')).token);
    await serveCatalog(second, [{ id: 'shared.name', revision: 'sha256:other' }, { id: 'second.own' }]);
    const notice = await second.nextOfType('tool.error', (f) => f.replyTo === undefined);
    assert.equal(notice.payload.code, 'tool_name_conflict');
    assert.equal(registry().get(workspaceId, 'second.own'), undefined, 'refused whole');
    await second.close();
    await first.close();
  });
});
