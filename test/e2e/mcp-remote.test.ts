import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { STORE_FILE } from '../../src/store/db.js';
import {
  channelToken,
  ownerDirs,
  remoteSession,
  runTurn,
  scriptPlans,
  spawnOwner,
  startGatewayHost,
  type GatewayHost,
  type OwnerProcess,
  type SeenResult,
  type TempOwnerDirs,
} from '../support/gateway.js';

const SERVER = fileURLToPath(new URL('../support/mcp-notes-server.mjs', import.meta.url));

/**
 * Issue 15: the owner's MCP server used by a remote host. `berth connect` (A) starts the MCP
 * server its home config names; the agent on B finds its tools with `workspace_tools` and runs
 * one with `workspace_tool` through the gateway channel. A runs it under its own approval and
 * receipt; B never sees the server's configuration (its secret env stays on A).
 */
describe('a remote host uses the owner MCP server through the gateway channel', { timeout: 120_000 }, () => {
  let host: GatewayHost;
  let dirs: TempOwnerDirs;
  let owner: OwnerProcess;

  before(async () => {
    host = await startGatewayHost();
    dirs = ownerDirs({ 'README.md': 'a project\n' });
    const mcpServers = { notes: { command: process.execPath, args: [SERVER], env: { NOTES_DIR: dirs.home, SECRET_TOKEN: 'owner-only-secret' } } };
    writeFileSync(join(dirs.home, 'config.json'), JSON.stringify({ mcpServers }));
    owner = spawnOwner({ url: host.b.url, token: await channelToken(host.b), project: dirs.project, home: dirs.home, args: ['--approve', 'write'] });
    await owner.waitForLines(/channel ready/);
    await owner.waitForLines(/MCP servers: notes/);
  });
  after(async () => {
    await owner?.kill();
    await host?.close();
    dirs?.remove();
  });

  test('B lists the owner server tools and writes a note through workspace_tool; A runs it once with a receipt', async () => {
    let listed: SeenResult | undefined;
    scriptPlans(
      host.stack.model,
      new Map([
        [
          'write a note on A',
          (seen: SeenResult[]) => {
            if (seen.length === 0) return [{ name: 'workspace_tools', arguments: {} }];
            if (seen.length === 1) {
              listed = seen[0];
              return [{ name: 'workspace_tool', arguments: { name: 'mcp__notes__write_note', arguments: { name: 'fromb', text: 'hello A' } } }];
            }
            return null;
          },
        ],
      ]),
    );
    const sessionId = await remoteSession(host.b);
    const turn = await runTurn(host.b, sessionId, 'write a note on A');
    assert.equal(turn.terminal.type, 'turn_complete');
    const names = listed!.json.tools.map((t: { name: string; policy: string }) => `${t.name}:${t.policy}`);
    assert.ok(names.includes('mcp__notes__write_note:write'), names.join(' '));
    assert.ok(names.includes('mcp__notes__wipe_notes:critical'));
    assert.doesNotMatch(JSON.stringify(turn.events), /owner-only-secret/, 'nothing of the server configuration reaches B');
    const used = turn.calls.find((c) => c.tool === 'workspace_tool')!;
    assert.equal(used.status, 'completed', JSON.stringify(used.rawOutput));
    assert.equal(readFileSync(join(dirs.home, 'fromb.note'), 'utf8'), 'hello A');
    assert.deepEqual(readFileSync(join(dirs.home, 'calls.log'), 'utf8').split('\n').filter(Boolean), ['write_note'], 'run once');
    // A prints a call's status line after its result has left, so the turn can end before the line arrives.
    await owner.waitForLines(new RegExp(`workspace_tool · session ${sessionId.slice(0, 8)} · ok`));
    const receipts = new Database(join(dirs.home, STORE_FILE), { readonly: true, fileMustExist: true });
    try {
      // The receipt is the channel call's (workspace_tool, named by B's call id): a re-sent call replays it.
      const rows = receipts.prepare(`SELECT tool_name AS tool, status FROM receipts`).all();
      assert.deepEqual(rows, [{ tool: 'workspace_tool', status: 'completed' }], 'A kept one receipt for the call');
    } finally {
      receipts.close();
    }
  });
});
