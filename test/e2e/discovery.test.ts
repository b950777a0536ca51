import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestDaemon, type TestDaemon } from '../support/daemon.js';
import { validatorFor } from '../../src/http/contract.js';
import { rawGet } from '../support/http.js';

describe('discovery on an anonymous loopback daemon', () => {
  let d: TestDaemon;
  before(async () => {
    d = await startTestDaemon();
  });
  after(() => d.close());

  it('answers the cheap health probe with status ok', async () => {
    const r = await d.json('GET', '/health');
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { status: 'ok' });
  });

  it('answers the deep probe with counters that validate against HealthResponse', async () => {
    for (const q of ['deep', 'deep=1', 'deep=true']) {
      const r = await d.json('GET', `/health?${q}`);
      assert.equal(r.status, 200);
      assert.equal(r.body.workspaceCount, 1, q);
      assert.ok(validatorFor('HealthResponse')(r.body), JSON.stringify(validatorFor('HealthResponse').errors));
    }
    const shallow = await d.json('GET', '/health?deep=2');
    assert.deepEqual(shallow.body, { status: 'ok' });
  });

  it('describes itself with a Capabilities body naming the primary workspace', async () => {
    const r = await d.json('GET', '/capabilities');
    assert.equal(r.status, 200);
    assert.ok(validatorFor('Capabilities')(r.body), JSON.stringify(validatorFor('Capabilities').errors));
    assert.equal(r.body.workspaceCwd, d.workspace);
    assert.ok(r.body.features.includes('health'));
    for (const tag of ['berth_gateway_channel', 'berth_tool_protocol', 'berth_module_protocol']) {
      assert.ok(r.body.features.includes(tag), tag);
    }
    for (const bound of ['frameBytes', 'channels', 'maxApplications', 'moduleMostLineBytes', 'maxBatchCalls']) {
      assert.equal(typeof r.body.limits[bound], 'number', bound);
    }
    assert.equal(r.body.workspaces[0].primary, true);
  });

  it('refuses a foreign Origin and a rebinding Host with 403', async () => {
    const cors = await d.json('GET', '/health', undefined, { origin: 'https://evil.example' });
    assert.equal(cors.status, 403);
    assert.equal(cors.body.code, 'cors_denied');
    const host = await rawGet(d.url, '/health', { host: 'evil.example:80' });
    assert.equal(host.status, 403);
    assert.equal(JSON.parse(host.body).code, 'invalid_host');
  });

  it('answers an unknown route with a 404 Error body', async () => {
    const r = await d.json('GET', '/nope');
    assert.equal(r.status, 404);
    assert.equal(r.body.code, 'route_not_found');
    assert.equal(typeof r.body.error, 'string');
  });
});
