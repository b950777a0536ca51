import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { checkMcpServers } from '../../src/config/mcp-servers.js';
import { TEST_AGENT_ID, testAgentSpec, withAgents } from '../support/acp-stack.js';
import type { TestDaemon } from '../support/daemon.js';
import { EventReader, newSession, submit, type WireEvent } from '../support/session-client.js';
import { stackPerSuite } from '../support/stack.js';
import { tempDir } from '../support/tmp.js';

/** The workspace's MCP servers given to an external agent in session/new and session/load (issue 12). */

const SERVER = fileURLToPath(new URL('../support/mcp-notes-server.mjs', import.meta.url));
const PLAIN = 'plain';

const said = (events: readonly WireEvent[], promptId: string): string =>
  events
    .filter((e) => e.type === 'session_update' && e.promptId === promptId && e.data.update.sessionUpdate === 'agent_message_chunk')
    .map((e) => e.data.update.content.text)
    .join('');

async function askServers(d: TestDaemon, sessionId: string, events: EventReader): Promise<unknown> {
  const res = await submit(d, sessionId, 'mcp?');
  assert.equal(res.status, 202, JSON.stringify(res.body));
  await events.terminal(res.body.promptId);
  return JSON.parse(said(events.seen, res.body.promptId));
}

describe('MCP servers for external agents', () => {
  const notes = tempDir('berth-acp-notes-');
  const mcpServers = checkMcpServers(
    {
      notes: { command: process.execPath, args: [SERVER], env: { NOTES_DIR: notes } },
      issues: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer issues-token' } },
    },
    'test',
    'home',
  );
  let d: TestDaemon;
  stackPerSuite(
    (stack) => (d = stack.daemon),
    withAgents(
      { agents: [testAgentSpec({ env: { ACP_TEST_MCP_HTTP: '1' } }), testAgentSpec({ id: PLAIN })] },
      {
        config: { mcpServers },
        files: { '.berth/mcp.json': JSON.stringify({ mcpServers: { local: { command: './tools/serve', args: ['--stdio'] } } }) },
      },
    ),
  );

  const notesServer = { name: 'notes', command: process.execPath, args: [SERVER], env: [{ name: 'NOTES_DIR', value: notes }] };
  const issuesServer = { type: 'http', name: 'issues', url: 'http://127.0.0.1:9/mcp', headers: [{ name: 'Authorization', value: 'Bearer issues-token' }] };
  const localServer = (root: string) => ({ name: 'local', command: join(root, 'tools/serve'), args: ['--stdio'], env: [] });

  it('gives an agent that takes http servers the home and workspace servers, stdio and http, in ACP shapes', async () => {
    const { sessionId } = await newSession(d, { modelServiceId: TEST_AGENT_ID });
    const events = await EventReader.open(d, sessionId);
    assert.deepEqual(await askServers(d, sessionId, events), [notesServer, issuesServer, localServer(d.workspace)]);
    events.close();
  });

  it('gives an agent without mcpCapabilities.http only the stdio servers', async () => {
    const { sessionId } = await newSession(d, { modelServiceId: PLAIN });
    const events = await EventReader.open(d, sessionId);
    assert.deepEqual(await askServers(d, sessionId, events), [notesServer, localServer(d.workspace)]);
    events.close();
  });

  it('gives the servers again in session/load when a session comes back on a new agent process', async () => {
    const { sessionId } = await newSession(d, { modelServiceId: TEST_AGENT_ID });
    const events = await EventReader.open(d, sessionId);
    await askServers(d, sessionId, events);
    // The workspace names one more server; the session's own agent session was opened with the old list.
    const more = { mcpServers: { local: { command: './tools/serve', args: ['--stdio'] }, extra: { command: process.execPath, args: ['--version'] } } };
    writeFileSync(join(d.workspace, '.berth/mcp.json'), JSON.stringify(more));
    const dying = await submit(d, sessionId, 'die');
    await events.terminal(dying.body.promptId);
    await events.type('session_died');
    events.close();
    const next = await submit(d, sessionId, 'mcp?');
    assert.equal(next.status, 202, JSON.stringify(next.body));
    const again = await EventReader.open(d, sessionId);
    await again.terminal(next.body.promptId);
    assert.ok(again.seen.some((e) => e.type === 'session_update' && e.data.update._meta?.berth?.restoredBy === 'agent_load'), 'the agent loaded its session');
    const extra = { name: 'extra', command: process.execPath, args: ['--version'], env: [] };
    assert.deepEqual(JSON.parse(said(again.seen, next.body.promptId)), [notesServer, issuesServer, localServer(d.workspace), extra]);
    again.close();
  });
});
