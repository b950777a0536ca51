import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { AppToolError, connect, type BerthApp } from '../../../src/app/index.js';
import { CATALOG_SCHEMA } from '../../../src/protocol/tools/catalog.js';
import { canonicalJson } from '../../../src/protocol/tools/canonical-json.js';
import { RawHost } from '../../support/raw-host.js';

const MiB = 1024 * 1024;
const TEXT_SCHEMA = { type: 'object', properties: { text: { type: 'string', maxLength: 20 } }, required: ['text'], additionalProperties: false };

/** The SDK seen from the wire: a raw host sends seed 003 requests and reads every frame the app sends. */
describe('berth/app on the wire', () => {
  let host: RawHost;
  let app: BerthApp;
  let enabled = true;
  let release: () => void = () => undefined;

  before(async () => {
    host = await RawHost.start();
    app = await connect(host.url, 'berth_app_test-token', {
      tools: [
        { id: 'demo.echo', name: 'Echo', description: 'Echo text', category: 'demo', policy: 'read', inputSchema: TEXT_SCHEMA, handler: ({ text }) => ({ text }) },
        {
          id: 'demo.save',
          description: 'Save text',
          category: 'demo',
          policy: 'write',
          inputSchema: TEXT_SCHEMA,
          availability: () => (enabled ? { available: true } : { available: false, reason: 'read-only mode', code: 'read_only' }),
          handler: () => 'saved',
        },
        { id: 'demo.fail', description: 'Always fails', category: 'demo', policy: 'read', inputSchema: { type: 'object' }, handler: () => { throw new Error('boom'); } },
        {
          id: 'demo.refuse',
          description: 'Fails with its own code',
          category: 'demo',
          policy: 'read',
          inputSchema: { type: 'object' },
          handler: () => { throw new AppToolError('node_not_found', 'No such node', { retryable: true, details: { node: 'x' } }); },
        },
        { id: 'demo.big', description: 'A large result', category: 'demo', policy: 'read', inputSchema: { type: 'object' }, handler: () => ({ big: 'abcdefgh'.repeat(MiB / 8) }) },
        { id: 'demo.wait', description: 'Waits', category: 'demo', policy: 'read', inputSchema: { type: 'object' }, handler: () => new Promise((r) => (release = () => r('released'))) },
      ],
      evidence: {
        visualTree: (args) => ({ root: 'window', args }),
        screenshot: () => ({ mimeType: 'image/png', data: new Uint8Array([137, 80, 78, 71]) }),
      },
    });
    await host.whenConnected();
  });
  after(async () => {
    await app.close();
    await host.close();
  });

  it('authenticates with Authorization: Bearer under Node, offering berth.tools.v1', () => {
    assert.equal(host.lastUpgrade.authorization, 'Bearer berth_app_test-token');
    assert.equal(host.lastUpgrade.protocols, 'berth.tools.v1');
  });

  it('answers an index query with ids, policies and definition revisions, and definitions whose revisions hash their canonical JSON', async () => {
    const index = await host.request('tool.query', { detail: 'index' });
    assert.equal(index.type, 'tool.catalog');
    assert.equal(index.id, `${index.replyTo}.response`);
    assert.equal(index.payload.schema, CATALOG_SCHEMA);
    assert.equal(index.payload.detail, 'index');
    assert.deepEqual(index.payload.tools.map((t: { id: string }) => t.id), ['demo.big', 'demo.echo', 'demo.fail', 'demo.refuse', 'demo.save', 'demo.wait']);
    assert.equal(index.payload.tools[1].name, 'Echo');
    assert.equal(index.payload.tools[1].inputSchema, undefined, 'index entries omit schemas');
    const defs = await host.request('tool.query', { detail: 'definitions', ids: ['demo.echo'] });
    const [echo] = defs.payload.tools;
    const { definitionRevision, ...definition } = echo;
    // Seed 003: additionalProperties:false is the protocol default and is omitted.
    assert.deepEqual(definition.inputSchema, { type: 'object', properties: { text: { type: 'string', maxLength: 20 } }, required: ['text'] });
    assert.equal(definitionRevision, `sha256:${createHash('sha256').update(canonicalJson(definition)).digest('hex')}`);
    assert.equal(definitionRevision, index.payload.tools[1].definitionRevision);
  });

  it('answers exactly {schema, revision, unchanged} when both revisions match, and only the availability changes when they moved', async () => {
    const first = (await host.request('tool.query', { detail: 'index' })).payload;
    const same = await host.request('tool.query', { detail: 'index', ifRevision: first.revision, ifAvailabilityRevision: first.availabilityRevision });
    assert.deepEqual(same.payload, { schema: CATALOG_SCHEMA, revision: first.revision, unchanged: true });

    const seen = host.received.length;
    enabled = false;
    app.announce();
    const announcement = await host.next((f) => f.type === 'tool.catalog' && f.replyTo === undefined && host.received.indexOf(f) >= seen);
    assert.equal(announcement.payload.unchanged, true);
    assert.equal(announcement.payload.revision, first.revision);
    assert.deepEqual(announcement.payload.changes, { 'demo.save': { available: false, code: 'read_only', reason: 'read-only mode' } });
    const moved = await host.request('tool.query', { detail: 'index', ifRevision: first.revision, ifAvailabilityRevision: first.availabilityRevision });
    assert.deepEqual(moved.payload.changes, announcement.payload.changes);
    assert.notEqual(moved.payload.availabilityRevision, first.availabilityRevision);

    const refused = await host.request('tool.call', { toolId: 'demo.save', arguments: { text: 'x' } });
    assert.equal(refused.type, 'tool.error');
    assert.equal(refused.payload.code, 'tool_unavailable');
    enabled = true;
  });

  it('answers each failing call with a tool.error and a stable code', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ toolId: 'demo.nope', arguments: {} }, 'unknown_tool'],
      [{ toolId: 'demo.echo', arguments: { text: 7 } }, 'invalid_arguments'],
      [{ toolId: 'demo.echo', arguments: ['not', 'an', 'object'] }, 'invalid_arguments'],
      [{ toolId: 'demo.fail', arguments: {} }, 'tool_failed'],
      [{ toolId: 'demo.refuse', arguments: {} }, 'node_not_found'],
    ];
    for (const [payload, code] of cases) {
      const answer = await host.request('tool.call', payload);
      assert.equal(answer.type, 'tool.error', JSON.stringify(payload));
      assert.equal(answer.payload.code, code);
      assert.equal(typeof answer.payload.retryable, 'boolean');
    }
    const refuse = await host.request('tool.call', { toolId: 'demo.refuse', arguments: {} });
    assert.deepEqual(refuse.payload, { code: 'node_not_found', message: 'No such node', retryable: true, details: { node: 'x' } });
  });

  it('lowers its guard to the maxToolPolicy the host names: write tools leave the catalog and their calls are refused', async () => {
    const index = await host.request('tool.query', { detail: 'index', maxToolPolicy: 'read' });
    assert.equal(index.payload.tools.some((t: { id: string }) => t.id === 'demo.save'), false);
    const refused = await host.request('tool.call', { toolId: 'demo.save', arguments: { text: 'x' } });
    assert.equal(refused.payload.code, 'policy_denied');
    const restored = await host.request('tool.query', { detail: 'index', maxToolPolicy: 'critical' });
    assert.equal(restored.payload.tools.some((t: { id: string }) => t.id === 'demo.save'), true);
  });

  it('collects the evidence asked for after a successful call, screenshots base64', async () => {
    const answer = await host.request('tool.call', {
      toolId: 'demo.echo',
      arguments: { text: 'hi' },
      after: { include: ['visualTree', 'screenshot'], delayMilliseconds: 0, visualTreeArguments: { depth: 2 } },
    });
    assert.equal(answer.type, 'tool.result');
    assert.deepEqual(answer.payload, {
      toolId: 'demo.echo',
      success: true,
      result: { text: 'hi' },
      evidence: { visualTree: { root: 'window', args: { depth: 2 } }, screenshot: { mimeType: 'image/png', data: 'iVBORw==' } },
    });
  });

  it('runs a batch in order, stopping at the first failure unless continueOnError', async () => {
    const calls = [
      { callId: 'a', toolId: 'demo.echo', arguments: { text: '1' } },
      { callId: 'b', toolId: 'demo.fail', arguments: {} },
      { callId: 'c', toolId: 'demo.echo', arguments: { text: '3' } },
    ];
    const stopped = (await host.request('tool.batch', { calls })).payload;
    assert.deepEqual(
      { success: stopped.success, completed: stopped.completed, requested: stopped.requested, stoppedEarly: stopped.stoppedEarly },
      { success: false, completed: 2, requested: 3, stoppedEarly: true },
    );
    assert.deepEqual(stopped.results[0], { index: 0, callId: 'a', toolId: 'demo.echo', success: true, result: { text: '1' } });
    assert.equal(stopped.results[1].error.code, 'tool_failed');
    const continued = (await host.request('tool.batch', { continueOnError: true, calls })).payload;
    assert.equal(continued.completed, 3);
    assert.equal(continued.stoppedEarly, false);
    assert.deepEqual(continued.results.map((r: { success: boolean }) => r.success), [true, false, true]);
    const tooMany = await host.request('tool.batch', { calls: Array.from({ length: 33 }, () => calls[0]) });
    assert.equal(tooMany.payload.code, 'batch_size');
  });

  it('sends a 1 MiB result compressed, and reads compressed requests', async () => {
    const answer = await host.request('tool.call', { toolId: 'demo.big', arguments: {} });
    const text = host.texts[host.received.indexOf(answer)]!;
    assert.ok(text.includes('"$ansightEncoding":"gzip-base64-json"'));
    assert.ok(text.length < 64 * 1024, `the frame is ${text.length} characters`);
    assert.equal(answer.payload.result.big.length, MiB);
    const { encodePayload } = await import('../../../src/tools/compression.js');
    const wrapped = encodePayload({ toolId: 'demo.echo', arguments: { text: 'compressed', pad: 'p'.repeat(40_000) } });
    const refused = await host.request('tool.call', wrapped);
    assert.equal(refused.payload.code, 'invalid_arguments', 'decoded, then judged: `pad` is not in the schema');
  });

  it('refuses malformed host frames with protocol errors and keeps answering', async () => {
    const before = host.received.length;
    host.send('not json');
    host.send({ type: 'tool.call', id: 'bad-1', payload: { arguments: {} } });
    host.send({ type: 'tool.query', id: 'bad-2', payload: { $ansightEncoding: 'gzip-base64-json', data: '%%%' } });
    host.send({ type: 'tool.result', id: 'bad-3', payload: {} });
    const refusals = await Promise.all([
      host.next((f) => f.type === 'tool.error' && f.replyTo === undefined && host.received.indexOf(f) >= before),
      host.next((f) => f.replyTo === 'bad-1'),
      host.next((f) => f.replyTo === 'bad-2'),
      host.next((f) => f.replyTo === 'bad-3'),
    ]);
    assert.deepEqual(refusals.map((f) => f.payload.code), ['protocol_error', 'protocol_error', 'invalid_encoding', 'protocol_error']);
    assert.equal((await host.request('tool.call', { toolId: 'demo.echo', arguments: { text: 'ok' } })).type, 'tool.result');
  });

  it('keeps answering other requests while one call is still running', async () => {
    const slow = host.request('tool.call', { toolId: 'demo.wait', arguments: {} });
    assert.equal((await host.request('tool.call', { toolId: 'demo.echo', arguments: { text: 'meanwhile' } })).type, 'tool.result');
    release();
    assert.equal((await slow).payload.result, 'released');
  });
});
