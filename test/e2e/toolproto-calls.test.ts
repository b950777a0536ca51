import assert from 'node:assert/strict';
import { after, before, beforeEach, afterEach, describe, it } from 'node:test';
import type { ApplicationLink } from '../../src/tools/application-link.js';
import { startTestDaemon, type TestDaemon } from '../support/daemon.js';
import { RawApp, agentCall, serveCatalog, unwrap, until, wrap, type RawTool } from '../support/raw-app.js';

const MiB = 1024 * 1024;
const TOOLS: RawTool[] = [
  { id: 'app.echo', policy: 'read', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
  { id: 'app.save', policy: 'write', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
];

describe('tool protocol calls: the daemon calls, the application answers', () => {
  let d: TestDaemon;
  let token: string;
  let app: RawApp;
  let link: ApplicationLink;

  before(async () => {
    d = await startTestDaemon();
    token = (await d.daemon.core.tokens.createAppToken('caller-app', 'write')).token;
  });
  after(() => d.close());
  beforeEach(async () => {
    app = await RawApp.connect(d, token);
    // Only the first connection is asked for definitions; later ones find them cached by revision.
    await serveCatalog(app, TOOLS, 'sha256:catalog-1', connections++ === 0);
    const workspaceId = d.daemon.core.workspaces.primary().id;
    link = await until(() => d.daemon.core.tools.applications.link(workspaceId, 'caller-app'));
  });
  afterEach(() => app.close());
  let connections = 0;

  it('sends an agent call as tool.call with the session id, and returns the tool.result to the agent', async () => {
    const outcome = agentCall(d, 'app.echo', { text: 'hi' });
    const call = await app.nextOfType('tool.call');
    assert.equal(call.sessionId, 'session-under-test');
    assert.equal(call.capability, 'tool.exec');
    assert.deepEqual(call.payload, { toolId: 'app.echo', arguments: { text: 'hi' } });
    app.answer(call, 'tool.result', { toolId: 'app.echo', success: true, message: 'echoed', result: { text: 'hi' } });
    const done = await outcome;
    assert.ok(done.ok);
    assert.deepEqual(done.result.value, { result: { text: 'hi' }, message: 'echoed' });
  });

  it('refuses arguments that break the published schema before anything is sent', async () => {
    const outcome = await agentCall(d, 'app.echo', { text: 42 });
    assert.equal(!outcome.ok && outcome.error.code, 'invalid_arguments');
    assert.equal(app.received.filter((f) => f.type === 'tool.call').length, 0);
  });

  it('sends the evidence an agent asks for as `after`, outside the arguments', async () => {
    const outcome = agentCall(d, 'app.echo', { text: 'x', after: { include: ['screenshot'], delayMilliseconds: 250 } });
    const call = await app.nextOfType('tool.call');
    assert.deepEqual(call.payload, { toolId: 'app.echo', arguments: { text: 'x' }, after: { include: ['screenshot'], delayMilliseconds: 250 } });
    const png = Buffer.from('not really a png').toString('base64');
    app.answer(call, 'tool.result', { toolId: 'app.echo', success: true, result: null, evidence: { screenshot: { mimeType: 'image/png', data: png } } });
    const done = await outcome;
    assert.ok(done.ok);
    assert.deepEqual(done.result.content?.[1], { type: 'image', data: png, mimeType: 'image/png' }, 'the model sees the screenshot');
    assert.deepEqual((done.result.value as any).evidence, { screenshot: { mimeType: 'image/png', attached: true } });
  });

  it("passes the application's own error code: verbatim on the link, as tool_failed with applicationCode to agents", async () => {
    const direct = link.call('app.echo', { text: 'a' });
    const first = await app.nextOfType('tool.call');
    app.answer(first, 'tool.error', { code: 'node_not_found', message: 'No node save', retryable: false, details: { node: 'save' } });
    assert.deepEqual(await direct, { ok: false, error: { code: 'node_not_found', message: 'No node save', retryable: false, details: { node: 'save' } } });

    const viaAgent = agentCall(d, 'app.echo', { text: 'b' });
    const second = await app.nextOfType('tool.call');
    app.answer(second, 'tool.error', { code: 'node_not_found', message: 'No node save', retryable: true });
    const outcome = await viaAgent;
    assert.equal(outcome.ok, false);
    assert.equal(!outcome.ok && outcome.error.code, 'tool_failed');
    assert.deepEqual(!outcome.ok && outcome.error.details, { applicationCode: 'node_not_found', retryable: true });
  });

  it('ends a call in flight with application_disconnected when the application goes away, and its tools become unavailable', async () => {
    const outcome = agentCall(d, 'app.save', { text: 'unsent' });
    await app.nextOfType('tool.call');
    app.ws.terminate();
    const done = await outcome;
    assert.equal(!done.ok && done.error.code, 'application_disconnected');
    const tool = d.daemon.core.tools.applications.get(d.daemon.core.workspaces.primary().id, 'app.save')!;
    assert.equal(tool.availability!().code, 'application_disconnected');
    const later = await agentCall(d, 'app.save', { text: 'later' });
    assert.equal(!later.ok && later.error.code, 'tool_unavailable');
  });

  it('sends a batch as one tool.batch and reads its results in input order', async () => {
    const report = link.batch({
      continueOnError: false,
      calls: [
        { callId: 'one', toolId: 'app.echo', arguments: { text: '1' } },
        { callId: 'two', toolId: 'app.save', arguments: { text: '2' } },
        { callId: 'three', toolId: 'app.echo', arguments: { text: '3' } },
      ],
    });
    const batch = await app.nextOfType('tool.batch');
    assert.equal(batch.payload.continueOnError, false);
    assert.deepEqual(batch.payload.calls.map((c: { callId: string }) => c.callId), ['one', 'two', 'three']);
    app.answer(batch, 'tool.batch.result', {
      success: false,
      completed: 2,
      requested: 3,
      stoppedEarly: true,
      results: [
        { index: 0, callId: 'one', toolId: 'app.echo', success: true, result: '1' },
        { index: 1, callId: 'two', toolId: 'app.save', success: false, error: { code: 'disk_full', message: 'full', retryable: true } },
      ],
    });
    const r = await report;
    assert.deepEqual(
      { success: r.success, completed: r.completed, requested: r.requested, stoppedEarly: r.stoppedEarly },
      { success: false, completed: 2, requested: 3, stoppedEarly: true },
    );
    assert.deepEqual(r.results[0]!.outcome, { ok: true, result: { value: { result: '1' } } });
    assert.equal(!r.results[1]!.outcome.ok && r.results[1]!.outcome.error.code, 'disk_full');
  });

  it('compresses large arguments it sends, so the application must unwrap them', async () => {
    const text = 'lorem ipsum '.repeat(10_000);
    const outcome = agentCall(d, 'app.echo', { text });
    const call = await app.nextOfType('tool.call');
    assert.equal(call.payload.$ansightEncoding, 'gzip-base64-json');
    assert.ok(call.payload.data.length < text.length / 10);
    assert.deepEqual(unwrap(call.payload), { toolId: 'app.echo', arguments: { text } });
    app.answer(call, 'tool.result', { toolId: 'app.echo', success: true, result: 'ok' });
    assert.ok((await outcome).ok);
  });

  it('decodes a 1 MiB result that travels compressed', async () => {
    const outcome = agentCall(d, 'app.echo', { text: 'big' });
    const call = await app.nextOfType('tool.call');
    const big = 'abcdefgh'.repeat(MiB / 8);
    const wrapped = wrap({ toolId: 'app.echo', success: true, result: { big } });
    assert.ok((wrapped.data as string).length < 64 * 1024, 'the frame is far smaller than the result');
    app.answer(call, 'tool.result', wrapped);
    const done = await outcome;
    assert.ok(done.ok);
    assert.equal((done.result.value as { result: { big: string } }).result.big.length, big.length);
  });
});
