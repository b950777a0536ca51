import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { CommandManager, localWorkspaceTools } from '../../../../src/tools/builtin/index.js';

const seed = JSON.parse(readFileSync(new URL('../../../../contract/gateway-v1.json', import.meta.url), 'utf8'));

describe('the local workspace tool set', () => {
  const tools = localWorkspaceTools({ commands: new CommandManager({ clock: { now: () => 0 } }) });

  it('offers every seed-000 workspace tool except the tool-layer pair, with the seed text and schemas', () => {
    const expected = seed.tools.filter((t: { name: string }) => t.name !== 'workspace_tools' && t.name !== 'workspace_tool');
    assert.deepEqual(
      tools.map((t) => t.name),
      expected.map((t: { name: string }) => t.name),
    );
    for (const t of expected) {
      const mine = tools.find((x) => x.name === t.name)!;
      assert.ok(mine.description.startsWith(t.description), `${t.name} keeps the seed description`);
      if (t.name === 'workspace_exec' || t.name === 'workspace_poll') {
        // Berth adds one optional property (docs/workspace-tools.md); every seed property and rule stays.
        const { waitMs, ...seedProperties } = (mine.inputSchema as any).properties;
        assert.deepEqual({ ...(mine.inputSchema as object), properties: seedProperties }, t.inputSchema, t.name);
        assert.equal(waitMs.type, 'integer');
        assert.equal(waitMs.minimum, 0);
      } else {
        assert.deepEqual(mine.inputSchema, t.inputSchema, t.name);
      }
      assert.deepEqual(mine.annotations, t.annotations, t.name);
    }
  });

  it('adds Berth\'s meaning of a null expectedSha256 to workspace_patch and workspace_delete only', () => {
    const added = Object.fromEntries(
      tools.map((t) => [t.name, t.description.slice(seed.tools.find((s: { name: string }) => s.name === t.name).description.length)]),
    );
    assert.match(added.workspace_patch, /^ Berth: expectedSha256 null patches the file as it is now, without comparing revisions/);
    assert.match(added.workspace_delete, /^ Berth: expectedSha256 null deletes the regular file whatever its content/);
    const others = Object.entries(added).filter(([name]) => name !== 'workspace_patch' && name !== 'workspace_delete');
    assert.deepEqual(others.filter(([, extra]) => extra !== ''), []);
  });

  it('places reads, writes and critical effects under the policies the issue names', () => {
    const policy = Object.fromEntries(tools.map((t) => [t.name, t.policy]));
    assert.deepEqual(policy, {
      workspace_info: 'read',
      workspace_list: 'read',
      workspace_read: 'read',
      workspace_image: 'read',
      workspace_document: 'read',
      workspace_write: 'write',
      workspace_patch: 'write',
      workspace_delete: 'critical',
      workspace_exec: 'critical',
      workspace_poll: 'read',
      workspace_input: 'critical',
      workspace_stop: 'read',
      workspace_ask: 'read',
    });
    const category = new Set(tools.map((t) => t.category));
    assert.deepEqual([...category].sort(), ['interaction', 'process', 'workspace']);
  });
});
