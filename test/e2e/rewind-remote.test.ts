import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { connectedOwnerPerSuite, remoteSession, type GatewayHost, type OwnerProcess, type TempOwnerDirs } from '../support/gateway.js';
import { runTurn } from '../support/history.js';

/**
 * Rewind on a remote workspace (issue 14, docs/client-api.md §5.13): B keeps the checkpoints
 * of calls that ran on A's project through the gateway channel, and a rewind puts A's files
 * back through the same channel tools (A's receipts and checks apply), or refuses when A's
 * owner changed one meanwhile.
 */

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

describe('rewind through the gateway channel', { timeout: 120_000 }, () => {
  let host: GatewayHost;
  let dirs: TempOwnerDirs;
  let owner: OwnerProcess;

  connectedOwnerPerSuite({ 'a.txt': 'A0\n', 'b.txt': 'B0\n' }, (pair) => ({ host, dirs, owner } = pair));

  const read = (name: string) => (existsSync(join(dirs.project, name)) ? readFileSync(join(dirs.project, name), 'utf8') : null);

  async function twoTurns(): Promise<{ sessionId: string; first: string }> {
    host.stack.model.enqueue(
      {
        kind: 'reply',
        toolCalls: [
          { name: 'workspace_patch', arguments: { path: 'a.txt', oldText: 'A0', newText: 'A1', expectedSha256: null } },
          { name: 'workspace_write', arguments: { path: 'c.txt', content: 'C1\n', expectedSha256: null } },
        ],
      },
      { kind: 'reply', text: 'done one' },
      {
        kind: 'reply',
        toolCalls: [
          { name: 'workspace_write', arguments: { path: 'a.txt', content: 'A2\n', expectedSha256: sha('A1\n') } },
          { name: 'workspace_delete', arguments: { path: 'b.txt', expectedSha256: sha('B0\n') } },
        ],
      },
      { kind: 'reply', text: 'done two' },
    );
    const sessionId = await remoteSession(host.b);
    const one = await runTurn(host.b, sessionId, 'remote one');
    await runTurn(host.b, sessionId, 'remote two');
    assert.deepEqual([read('a.txt'), read('b.txt'), read('c.txt')], ['A2\n', null, 'C1\n'], 'the turns ran on A’s disk');
    return { sessionId, first: one.promptId };
  }

  test('a file A’s owner changed refuses the rewind, and once put back, the rewind restores A’s three files through the channel', async () => {
    const { sessionId, first } = await twoTurns();
    writeFileSync(join(dirs.project, 'c.txt'), 'changed on A\n');
    const refused = await host.b.json('POST', `/session/${sessionId}/rewind`, { promptId: first });
    assert.equal(refused.status, 409);
    assert.equal(refused.body.code, 'rewind_conflict');
    assert.deepEqual(refused.body.files, ['c.txt']);
    assert.equal(read('a.txt'), 'A2\n', 'nothing was restored');

    writeFileSync(join(dirs.project, 'c.txt'), 'C1\n');
    const res = await host.b.json('POST', `/session/${sessionId}/rewind`, { promptId: first });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual([...res.body.filesChanged].sort(), ['a.txt', 'b.txt', 'c.txt']);
    assert.deepEqual([read('a.txt'), read('b.txt'), read('c.txt')], ['A0\n', 'B0\n', null]);
    // The owner ran the restoring calls itself, under its own checks and receipts.
    await owner.waitForLines(/workspace_delete · session/, 2);
  });
});
