import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { validatorFor } from '../../src/http/contract.js';
import { startTestDaemon, type TestDaemon } from '../support/daemon.js';
import { countingTool } from '../support/tools.js';

const SEED_000_NAMES: string[] = JSON.parse(
  readFileSync(new URL('../../contract/gateway-v1.json', import.meta.url), 'utf8'),
).tools.map((t: { name: string }) => t.name);

describe('GET /workspace/tools', () => {
  let d: TestDaemon;
  before(async () => {
    d = await startTestDaemon();
  });
  after(() => d.close());

  it('lists the primary workspace tools in a body that validates against WorkspaceTools', async () => {
    const r = await d.json('GET', '/workspace/tools');
    assert.equal(r.status, 200);
    const validate = validatorFor('WorkspaceTools');
    assert.ok(validate(r.body), JSON.stringify(validate.errors));
    assert.equal(r.body.v, 1);
    assert.equal(r.body.workspaceCwd, d.workspace);
    assert.equal(r.body.initialized, true);
    assert.equal(r.body.acpChannelLive, true);
    const names = (r.body.tools as { name: string }[]).map((t) => t.name);
    assert.deepEqual(names, [...SEED_000_NAMES, 'workspace_tool_batch'].sort(), 'every seed-000 tool and Berth\'s batch of application calls, sorted by name');
    for (const t of r.body.tools) {
      assert.equal(t.enabled, true, t.name);
      assert.equal(typeof t.description, 'string');
    }
  });

  it('does not list application tools, which agents reach through workspace_tool', async () => {
    const primary = d.daemon.core.workspaces.primary();
    d.daemon.core.tools.applications.publish(primary.id, 'test-app', [countingTool('app.only')]);
    try {
      const r = await d.json('GET', '/workspace/tools');
      assert.equal(r.status, 200);
      assert.equal((r.body.tools as { name: string }[]).some((t) => t.name === 'app.only'), false);
    } finally {
      d.daemon.core.tools.applications.withdraw(primary.id, 'test-app');
    }
  });

  it('is not advertised as a capability tag', async () => {
    const caps = await d.json('GET', '/capabilities');
    assert.equal(caps.status, 200);
    assert.equal((caps.body.features as string[]).some((f) => f.includes('workspace_tools')), false);
  });
});
