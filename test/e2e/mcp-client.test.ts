import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { checkMcpServers } from '../../src/config/mcp-servers.js';
import { EventReader, newSession, submit } from '../support/session-client.js';
import { startStack, type Stack } from '../support/stack.js';
import { removeDir, tempDir } from '../support/tmp.js';
import { votedTurn } from '../support/voted-turn.js';
import { ensureMemoryServer } from '../support/published-mcp.js';

/**
 * Issue 15, MCP client: a real MCP server process (test/support/mcp-notes-server.mjs, on the
 * official SDK) configured for the daemon; its tools reach the built-in agent under namespaced
 * names and run through Berth's guard, approval mode, permission requests and history. Effects
 * are counted in the server's own notes folder.
 */
const SERVER = fileURLToPath(new URL('../support/mcp-notes-server.mjs', import.meta.url));

const offered = (s: Stack): string[] => (s.model.completions().at(-1)!.tools ?? []).map((t: { function: { name: string } }) => t.function.name);
const lines = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);

/** What the model was told each call returned (the tool message text), in a new yolo session. */
async function agentTurn(s: Stack, calls: { id: string; name: string; arguments: Record<string, unknown> }[]): Promise<Record<string, string>> {
  const { sessionId } = await newSession(s.daemon, { approvalMode: 'yolo' });
  const events = await EventReader.open(s.daemon, sessionId);
  s.model.enqueue({ kind: 'reply', toolCalls: calls }, { kind: 'reply', text: 'done' });
  const submitted = await submit(s.daemon, sessionId, 'use the tools');
  assert.equal(submitted.status, 202);
  const terminal = await events.terminal(submitted.body.promptId);
  events.close();
  assert.equal(terminal.type, 'turn_complete', JSON.stringify(terminal));
  const replies: Record<string, string> = {};
  for (const m of s.model.completions().at(-1)!.messages as { role: string; tool_call_id?: string; content: unknown }[]) {
    if (m.role === 'tool' && m.tool_call_id) replies[m.tool_call_id] = typeof m.content === 'string' ? m.content : JSON.stringify(m.content);
  }
  return replies;
}

/** One prompt in `sessionId` whose model makes `calls`; every permission request is answered with `vote`. */
async function turnWithVotes(s: Stack, sessionId: string, calls: object[], vote: string) {
  const turn = await votedTurn(s.daemon, s.model, sessionId, calls, () => vote);
  return { asked: turn.asked, results: turn.settled };
}

describe('MCP servers as tools of the built-in agent (stdio)', { timeout: 120_000 }, () => {
  let s: Stack;
  let notes: string;
  before(async () => {
    notes = tempDir('berth-mcp-notes-');
    const mcpServers = checkMcpServers({ notes: { command: process.execPath, args: [SERVER], env: { NOTES_DIR: notes, MCP_TEST_MODE: 'badschema' } } }, 'test', 'home');
    s = await startStack({ config: { mcpServers } });
  });
  after(async () => {
    await s?.close();
    removeDir(notes);
  });

  it('offers the server tools under namespaced names, leaves out the one with a broken schema, and runs a read tool', async () => {
    const replies = await agentTurn(s, [{ id: 'e1', name: 'mcp__notes__echo', arguments: { text: 'hi' } }]);
    const names = offered(s);
    for (const n of ['mcp__notes__echo', 'mcp__notes__write_note', 'mcp__notes__wipe_notes']) assert.ok(names.includes(n), `${n} offered`);
    assert.ok(!names.includes('mcp__notes__broken'), 'a tool whose schema is not JSON Schema is left out');
    assert.match(replies.e1, /echo: hi/);
    const tools = (await s.daemon.json('GET', '/workspace/tools')).body.tools.map((t: { name: string }) => t.name);
    assert.ok(tools.includes('mcp__notes__echo'), 'GET /workspace/tools lists them too');
  });

  it('a write tool waits for a permission request in default mode, and a rejected one never reaches the server', async () => {
    const { sessionId } = await newSession(s.daemon, { approvalMode: 'default' });
    const approved = await turnWithVotes(s, sessionId, [{ name: 'mcp__notes__write_note', arguments: { name: 'kept', text: 'one' } }], 'proceed_once');
    assert.equal(approved.asked.length, 1);
    assert.equal(approved.asked[0]!.data.toolCall._meta.toolName, 'mcp__notes__write_note');
    assert.equal(readFileSync(join(notes, 'kept.note'), 'utf8'), 'one');
    const before = lines(join(notes, 'calls.log')).length;
    const rejected = await turnWithVotes(s, sessionId, [{ name: 'mcp__notes__write_note', arguments: { name: 'nope', text: 'two' } }], 'cancel');
    assert.equal(rejected.results[0]!.data.update.status, 'failed');
    assert.equal(existsSync(join(notes, 'nope.note')), false);
    assert.equal(lines(join(notes, 'calls.log')).length, before, 'the server was not called');
  });

  it('plan mode hides and refuses a destructive tool; the server never sees the call', async () => {
    const { sessionId } = await newSession(s.daemon, { approvalMode: 'plan' });
    const turn = await turnWithVotes(s, sessionId, [{ name: 'mcp__notes__wipe_notes', arguments: {} }], 'proceed_once');
    assert.ok(!offered(s).includes('mcp__notes__wipe_notes'));
    assert.ok(offered(s).includes('mcp__notes__echo'), 'read tools stay offered in plan mode');
    assert.equal(turn.results[0]!.data.update.rawOutput.error.code, 'policy_denied');
    assert.ok(!lines(join(notes, 'calls.log')).includes('wipe_notes'));
    assert.ok(existsSync(join(notes, 'kept.note')));
  });

  it('arguments are checked against the server schema before the server is called, and an error result fails the call', async () => {
    const replies = await agentTurn(s, [
      { id: 'bad', name: 'mcp__notes__write_note', arguments: { name: 'UPPER', text: 'x' } },
      { id: 'err', name: 'mcp__notes__fail', arguments: {} },
    ]);
    assert.match(replies.bad, /invalid_arguments|schema/i);
    assert.match(replies.err, /it went wrong on purpose/);
    assert.equal(existsSync(join(notes, 'UPPER.note')), false);
  });

  it('lists and reads the server resources and prompts through read tools', async () => {
    const replies = await agentTurn(s, [
      { id: 'rl', name: 'mcp__notes__resources_list', arguments: {} },
      { id: 'rr', name: 'mcp__notes__resource_read', arguments: { uri: 'note://readme' } },
      { id: 'pl', name: 'mcp__notes__prompts_list', arguments: {} },
      { id: 'pg', name: 'mcp__notes__prompt_get', arguments: { name: 'summarise', arguments: { topic: 'the parser' } } },
    ]);
    assert.match(replies.rl!, /note:\/\/readme/);
    assert.match(replies.rr!, /the text of note:\/\/readme/);
    assert.match(replies.pl!, /summarise/);
    assert.match(replies.pg!, /Summarise the parser/);
  });

  it('a server that dies is restarted and its tools work again; the session goes on', async () => {
    const crashed = await agentTurn(s, [{ id: 'c', name: 'mcp__notes__crash', arguments: {} }]);
    assert.match(crashed.c, /error/i);
    let again: Record<string, string> = {};
    for (let i = 0; i < 50; i++) {
      again = await agentTurn(s, [{ id: 'e2', name: 'mcp__notes__echo', arguments: { text: 'back' } }]);
      if (/echo: back/.test(again.e2)) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.match(again.e2, /echo: back/);
  });
});

describe('MCP servers over streamable HTTP and from the workspace file', { timeout: 120_000 }, () => {
  let s: Stack;
  let notes: string;
  let httpServer: ChildProcess;
  before(async () => {
    notes = tempDir('berth-mcp-http-');
    httpServer = spawn(process.execPath, [SERVER, '--http'], { env: { ...process.env, NOTES_DIR: notes }, stdio: ['ignore', 'pipe', 'inherit'] });
    const url = await new Promise<string>((resolve, reject) => {
      httpServer.stdout!.on('data', (d: Buffer) => {
        const m = /listening (\S+)/.exec(d.toString());
        if (m) resolve(m[1]!);
      });
      httpServer.on('exit', () => reject(new Error('the HTTP MCP server exited')));
    });
    const mcpServers = checkMcpServers({ remote: { type: 'http', url } }, 'test', 'home');
    s = await startStack({ config: { mcpServers } });
    // The workspace names a server of its own in .berth/mcp.json: it runs like the workspace's commands.
    mkdirSync(join(s.daemon.workspace, '.berth'), { recursive: true });
    writeFileSync(
      join(s.daemon.workspace, '.berth', 'mcp.json'),
      // Its notes go into the workspace: with a sandbox, the workspace is all it may write.
      JSON.stringify({ mcpServers: { local: { command: process.execPath, args: [SERVER], env: { NOTES_DIR: s.daemon.workspace } } } }),
    );
  });
  after(async () => {
    await s?.close();
    httpServer?.kill('SIGKILL');
    removeDir(notes);
  });

  it('runs a tool of an HTTP server and of the workspace own server in one turn', async () => {
    const replies = await agentTurn(s, [
      { id: 'h', name: 'mcp__remote__echo', arguments: { text: 'over http' } },
      { id: 'w', name: 'mcp__local__echo', arguments: { text: 'from the workspace file' } },
    ]);
    assert.match(replies.h, /echo: over http/);
    assert.match(replies.w, /echo: from the workspace file/);
    assert.deepEqual(lines(join(s.daemon.workspace, 'calls.log')), ['echo'], 'the workspace server ran in the workspace');
    assert.deepEqual(lines(join(notes, 'calls.log')), ['echo'], 'the HTTP server ran its one call');
  });
});

describe('a published MCP server from the npm registry (the reference memory server)', { timeout: 180_000 }, () => {
  let s: Stack;
  let dir: string;
  before(async () => {
    dir = tempDir('berth-mcp-memory-');
    const entry = ensureMemoryServer();
    const mcpServers = checkMcpServers({ memory: { command: process.execPath, args: [entry], env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') } } }, 'test', 'home');
    s = await startStack({ config: { mcpServers } });
  });
  after(async () => {
    await s?.close();
    removeDir(dir);
  });

  it('stores an entity with one tool and reads it back with another, and its file holds it', async () => {
    const replies = await agentTurn(s, [
      { id: 'c', name: 'mcp__memory__create_entities', arguments: { entities: [{ name: 'Berth', entityType: 'project', observations: ['hosts agents'] }] } },
    ]);
    assert.doesNotMatch(replies.c!, /"error"/, replies.c);
    const read = await agentTurn(s, [{ id: 'r', name: 'mcp__memory__read_graph', arguments: {} }]);
    assert.match(read.r!, /hosts agents/);
    assert.match(readFileSync(join(dir, 'memory.jsonl'), 'utf8'), /"name":"Berth"/);
    const policies = Object.fromEntries(
      (await s.daemon.json('GET', '/workspace/tools')).body.tools.map((t: { name: string; enabled: boolean }) => [t.name, t.enabled]),
    );
    assert.equal(policies['mcp__memory__read_graph'], true);
  });
});
