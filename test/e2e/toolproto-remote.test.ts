import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ScriptedToolCall } from '../../src/devtools/scripted-model/index.js';
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
import { createAppToken, startNotesApp, type NotesApp } from '../support/notes-app.js';

const call = (name: string, args: Record<string, unknown>): ScriptedToolCall => ({ name, arguments: args });

/**
 * Issue 7, remote hosts: an application on the owner's machine connects to
 * `berth connect --tools-listen`; a session on the agent host B finds and
 * calls its tools through the gateway channel, and A runs them under its own
 * guard, approval and receipts.
 */
describe('a remote agent host calls an application tool through the gateway channel', { timeout: 120_000 }, () => {
  let host: GatewayHost;
  let dirs: TempOwnerDirs;
  let owner: OwnerProcess;
  let notes: NotesApp;

  before(async () => {
    host = await startGatewayHost();
    dirs = ownerDirs({ 'README.md': 'a project\n' });
    const appToken = await createAppToken(dirs.home, 'notes', 'write');
    owner = spawnOwner({
      url: host.b.url,
      token: await channelToken(host.b),
      project: dirs.project,
      home: dirs.home,
      args: ['--approve', 'write', '--tools-listen', '127.0.0.1:0'],
    });
    await owner.waitForLines(/channel ready/);
    const [line] = await owner.waitForLines(/applications connect at ws:\/\//);
    const url = /applications connect at (\S+)/.exec(line!)![1]!;
    notes = await startNotesApp(url, appToken);
  });
  after(async () => {
    await notes?.stop();
    await owner?.kill();
    await host?.close();
    dirs?.remove();
  });

  test('B lists the app tools with workspace_tools and runs notes.add with workspace_tool; A runs it and the result reaches the model', async () => {
    let listed: SeenResult | undefined;
    scriptPlans(
      host.stack.model,
      new Map([
        [
          'take a note',
          (seen: SeenResult[]) => {
            const last = seen[seen.length - 1];
            if (last?.json?.tools === undefined && seen.length > 0) return null; // notes.add answered: done
            // The app connects a moment after A's channel: like a model would, ask again until its tools are listed.
            if (!last?.json.tools.some((t: { name: string }) => t.name === 'notes.add')) return [call('workspace_tools', {})];
            listed = last;
            return [call('workspace_tool', { name: 'notes.add', arguments: { text: 'from B' } })];
          },
        ],
      ]),
    );
    const sessionId = await remoteSession(host.b);
    const turn = await runTurn(host.b, sessionId, 'take a note');
    assert.equal(turn.terminal.type, 'turn_complete');
    assert.deepEqual(listed!.json.tools.map((t: { name: string }) => t.name), ['notes.add', 'notes.list']);
    const used = turn.calls.find((c) => c.tool === 'workspace_tool')!;
    assert.equal(used.status, 'completed');
    assert.deepEqual(used.rawOutput, { result: { added: { id: 1, text: 'from B' }, count: 1 } });
    const requests = host.stack.model.completions();
    const last = requests[requests.length - 1]!.messages as { role: string; content: string }[];
    assert.ok(last.some((m) => m.role === 'tool' && m.content.includes('"text":"from B"')), 'the model saw the note it added');
    // A prints a call's status line after its result has left, so the turn can end before the line arrives.
    await owner.waitForLines(new RegExp(`workspace_tool · session ${sessionId.slice(0, 8)} · ok`));
  });
});
