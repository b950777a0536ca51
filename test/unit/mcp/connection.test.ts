import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { checkMcpServers } from '../../../src/config/mcp-servers.js';
import { McpConnection } from '../../../src/mcp/connection.js';
import { removeDir, tempDir } from '../../support/tmp.js';

const SERVER = fileURLToPath(new URL('../../support/mcp-notes-server.mjs', import.meta.url));

describe('one MCP connection (a real stdio server)', () => {
  let dir: string;
  let connection: McpConnection;
  before(async () => {
    dir = tempDir('berth-mcp-conn-');
    const [spec] = checkMcpServers({ notes: { command: process.execPath, args: [SERVER] } }, 'test', 'home');
    connection = await McpConnection.open({
      spec: spec!,
      launch: { command: process.execPath, args: [SERVER], env: { NOTES_DIR: dir }, cwd: dir },
      onStderr: () => undefined,
      onLost: () => undefined,
    });
  });
  after(async () => {
    await connection?.close();
    removeDir(dir);
  });

  it('leaves no listener on the caller signal however many calls it serves (the SDK would keep one per call)', async () => {
    const turn = new AbortController();
    for (let i = 0; i < 30; i++) await connection.call('echo', { text: String(i) }, turn.signal);
    assert.equal(getEventListeners(turn.signal, 'abort').length, 0);
  });

  it('a call on an aborted signal never reaches the server', async () => {
    const log = join(dir, 'calls.log');
    const before = existsSync(log) ? readFileSync(log, 'utf8') : '';
    await assert.rejects(connection.call('write_note', { name: 'never', text: 'x' }, AbortSignal.abort()));
    assert.equal(existsSync(log) ? readFileSync(log, 'utf8') : '', before);
    assert.equal(existsSync(join(dir, 'never.note')), false);
  });

});

describe('MCP servers that do not start', () => {
  const [spec] = checkMcpServers({ broken: { command: process.execPath, args: [SERVER] } }, 'test', 'home');
  const open = (launch: { command: string; args: string[]; env: Record<string, string> }, initTimeoutMs = 10_000) =>
    McpConnection.open({ spec: spec!, launch: { ...launch, cwd: process.cwd() }, onStderr: () => undefined, onLost: () => undefined, initTimeoutMs });

  it('one that never answers initialize is tool_unavailable within the bound, and its process is stopped', async () => {
    await assert.rejects(open({ command: process.execPath, args: [SERVER], env: { MCP_TEST_MODE: 'hang' } }, 300), (err: any) => {
      assert.equal(err.code, 'tool_unavailable');
      assert.match(err.message, /did not initialize within 300 ms/);
      return true;
    });
  });

  it('a command that is not installed is tool_unavailable naming the server', async () => {
    await assert.rejects(open({ command: 'berth-no-such-mcp-server', args: [], env: {} }), (err: any) => {
      assert.equal(err.code, 'tool_unavailable');
      assert.match(err.message, /MCP server broken could not start/);
      return true;
    });
  });
});
