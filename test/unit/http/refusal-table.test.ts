import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RefusalTable } from '../../../src/http/webshell/refusal-table.js';
import type { Refusal } from '../../../src/http/webshell/workspace-refusals.js';

const table = new RefusalTable([
  ['POST', '/workspaces/:cwd/memory', 'no memory'],
  ['GET', '/workspaces/:cwd/mcp/:server/tools', 'no mcp'],
  ['POST', '/workspaces', 'no registration'],
  ['GET', '/live/status', 'no live'],
  ['POST', '/live/start', 'no live'],
] satisfies Refusal[]);

test('a refusal table registers one catch-all per first segment, and the one-segment paths themselves', () => {
  assert.deepEqual(
    table.catchAlls().map((r) => [r.url, r.method.sort().join(',')]),
    [
      ['/workspaces/*', 'GET,POST'],
      ['/workspaces', 'POST'],
      ['/live/*', 'GET,POST'],
    ],
  );
});

test('a request finds its entry by method and path, with its parameters decoded; others find none', () => {
  assert.deepEqual(table.match('GET', '/workspaces/%2Fhome%2Fme%2Fproj/mcp/notes/tools'), {
    method: 'GET',
    url: '/workspaces/:cwd/mcp/:server/tools',
    message: 'no mcp',
    params: { cwd: '/home/me/proj', server: 'notes' },
  });
  assert.equal(table.match('POST', '/workspaces/w1/memory')?.message, 'no memory');
  assert.equal(table.match('GET', '/workspaces/w1/memory'), undefined, 'another method');
  assert.equal(table.match('POST', '/workspaces/w1/memory/extra'), undefined, 'a longer path');
  assert.equal(table.match('POST', '/workspaces/%E0%A4%A/memory'), undefined, 'a malformed escape');
  assert.equal(table.match('GET', '/live/status')?.url, '/live/status');
});
