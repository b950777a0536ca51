import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { CommandManager, localWorkspaceTools } from '../../../src/tools/builtin/index.js';
import { ToolService } from '../../../src/tools/service.js';
import type { OwnerQuestion } from '../../../src/tools/types.js';
import { WorkspaceRegistry } from '../../../src/workspace/registry.js';
import type { LocalWorkspace } from '../../../src/workspace/types.js';
import { removeDir, tempDir } from '../../support/tmp.js';
import { fixedClock, tempStore } from '../../support/tools.js';

const SEED_000_NAMES: string[] = JSON.parse(
  readFileSync(new URL('../../../contract/gateway-v1.json', import.meta.url), 'utf8'),
).tools.map((t: { name: string }) => t.name);

describe('the tool service with the seed-000 builtins', () => {
  let s: ReturnType<typeof tempStore>;
  let root: string;
  let workspace: LocalWorkspace;
  let commands: CommandManager;
  let service: ToolService;
  const noQuestions = async (_q: OwnerQuestion) => 'unused';

  beforeEach(() => {
    s = tempStore();
    root = tempDir('berth-service-ws-');
    workspace = new WorkspaceRegistry([root]).primary();
    const clock = fixedClock();
    commands = new CommandManager({ clock });
    service = new ToolService({ journal: s.journal, clock });
    const builtins = localWorkspaceTools({ commands });
    service.setHostTools('local', () => builtins);
  });
  afterEach(async () => {
    await commands.dispose();
    s.close();
    removeDir(root);
  });

  it('gives a local workspace every seed-000 tool, each once, and the batch of application calls', () => {
    const names = service.forSession(workspace, 's1').definitions('critical').map((d) => d.name);
    assert.deepEqual([...names].sort(), [...SEED_000_NAMES, 'workspace_tool_batch'].sort());
  });

  it('shows a read-guarded session only read tools, with the policies the issue assigns', () => {
    const names = service.forSession(workspace, 's1').definitions('read').map((d) => d.name).sort();
    assert.deepEqual(names, [
      'workspace_ask',
      'workspace_document',
      'workspace_image',
      'workspace_info',
      'workspace_list',
      'workspace_poll',
      'workspace_read',
      'workspace_stop',
      'workspace_tool',
      'workspace_tool_batch',
      'workspace_tools',
    ]);
  });

  it('replays a session write by call id instead of writing twice', async () => {
    let asked = 0;
    const access = service.forSession(workspace, 's1');
    const options = {
      guard: 'critical' as const,
      signal: new AbortController().signal,
      permission: async () => (asked++, { allow: true as const }),
      ask: noQuestions,
    };
    const call = { toolCallId: 'call-1', name: 'workspace_write', args: { path: 'notes.txt', content: 'one', expectedSha256: null } };
    const first = await access.run(call, options);
    assert.ok(first.ok, JSON.stringify(first));
    const again = await access.run(call, options);
    assert.ok(again.ok && again.replayed, 'the stored result comes back although the file now exists');
    assert.deepEqual(again.result, first.result);
    assert.equal(asked, 1);
    assert.equal(readFileSync(join(root, 'notes.txt'), 'utf8'), 'one');

    const planned = await access.run({ ...call, toolCallId: 'call-2' }, { ...options, guard: 'read' });
    assert.equal(!planned.ok && planned.error.code, 'policy_denied');
  });
});
