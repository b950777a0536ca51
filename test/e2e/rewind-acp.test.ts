import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { TEST_AGENT_ID, withAgents } from '../support/acp-stack.js';
import type { TestDaemon } from '../support/daemon.js';
import { runTurn } from '../support/history.js';
import { newSession } from '../support/session-client.js';
import { stackPerSuite } from '../support/stack.js';

/**
 * Rewind for an external agent (issue 14, docs/client-api.md §5.13): its `fs/write_text_file`
 * requests run as the session's `workspace_write`, so they are checkpointed like the built-in
 * agent's own writes, and a rewind puts the files back.
 */
describe('rewind of an external agent’s fs writes', { timeout: 120_000 }, () => {
  let d: TestDaemon;
  stackPerSuite((stack) => (d = stack.daemon), withAgents({}, { files: { 'kept.txt': 'before\n' } }));

  const read = (name: string) => (existsSync(join(d.workspace, name)) ? readFileSync(join(d.workspace, name), 'utf8') : null);

  it('restores a file the agent replaced and removes one it created, over two turns', async () => {
    const { sessionId } = await newSession(d, { modelServiceId: TEST_AGENT_ID, approvalMode: 'yolo' });
    const first = await runTurn(d, sessionId, 'write kept.txt replaced by the agent');
    await runTurn(d, sessionId, 'write made.txt created by the agent');
    assert.deepEqual([read('kept.txt'), read('made.txt')], ['replaced by the agent', 'created by the agent']);

    const res = await d.json('POST', `/session/${sessionId}/rewind`, { promptId: first.promptId });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual([...res.body.filesChanged].sort(), ['kept.txt', 'made.txt']);
    assert.deepEqual([read('kept.txt'), read('made.txt')], ['before\n', null]);
  });
});
