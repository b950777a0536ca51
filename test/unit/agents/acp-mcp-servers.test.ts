import assert from 'node:assert/strict';
import { dirname } from 'node:path';
import { test } from 'node:test';
import { agentMcpServers } from '../../../src/agents/acp/mcp-servers.js';
import { checkMcpServers } from '../../../src/config/mcp-servers.js';

const where = { root: '/srv/project', path: dirname(process.execPath) };
const node = process.execPath.split('/').pop()!;

test('a bare command is found on PATH, a relative one taken from the server cwd or the root', () => {
  const specs = checkMcpServers(
    {
      bare: { command: node, args: ['server.js'], env: { A: '1' } },
      rel: { command: './bin/serve' },
      relCwd: { command: 'bin/serve', cwd: '/opt/tools' },
    },
    'test',
    'workspace',
  );
  const { servers, skipped } = agentMcpServers(specs, undefined, where);
  assert.deepEqual(skipped, []);
  assert.deepEqual(servers, [
    { name: 'bare', command: process.execPath, args: ['server.js'], env: [{ name: 'A', value: '1' }] },
    { name: 'rel', command: '/srv/project/bin/serve', args: [], env: [] },
    { name: 'relCwd', command: '/opt/tools/bin/serve', args: [], env: [] },
  ]);
});

test('an http server is given only to an agent that takes http, and a command not on PATH is left out, each with why', () => {
  const specs = checkMcpServers({ web: { url: 'https://mcp.example/x' }, gone: { command: 'no-such-mcp-server-anywhere' } }, 'test', 'home');
  const without = agentMcpServers(specs, { http: false }, where);
  assert.deepEqual(without.servers, []);
  assert.deepEqual(without.skipped.map((s) => s.name), ['web', 'gone']);
  assert.match(without.skipped[0]!.reason, /mcpCapabilities\.http/);
  assert.match(without.skipped[1]!.reason, /no-such-mcp-server-anywhere/);
  const withHttp = agentMcpServers(specs, { http: true }, where);
  assert.deepEqual(withHttp.servers, [{ type: 'http', name: 'web', url: 'https://mcp.example/x', headers: [] }]);
});
