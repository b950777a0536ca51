import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAppToken, startNotesApp, type NotesApp } from '../support/notes-app.js';
import { until } from '../support/raw-app.js';
import { EventReader, newSession, optionOf, submit } from '../support/session-client.js';
import { startStack, type Stack } from '../support/stack.js';

describe('an agent uses an application tool end to end', () => {
  let stack: Stack;
  let notes: NotesApp;

  before(async () => {
    stack = await startStack();
    const token = await createAppToken(stack.daemon.home, 'notes', 'write');
    notes = await startNotesApp(stack.daemon.url, token);
    const workspaceId = stack.daemon.daemon.core.workspaces.primary().id;
    await until(() => stack.daemon.daemon.core.tools.applications.get(workspaceId, 'notes.add'));
  });
  after(async () => {
    await notes?.stop();
    await stack.close();
  });

  it('the scripted model calls notes.add through workspace_tool, the write asks permission, and the result reaches the model', async () => {
    const d = stack.daemon;
    const { sessionId } = await newSession(d);
    const events = await EventReader.open(d, sessionId);
    stack.model.enqueue(
      {
        kind: 'reply',
        toolCalls: [{ id: 'call_list', name: 'workspace_tools', arguments: {} }],
      },
      {
        kind: 'reply',
        toolCalls: [{ id: 'call_add', name: 'workspace_tool', arguments: { name: 'notes.add', arguments: { text: 'buy milk' } } }],
      },
      { kind: 'reply', text: 'Noted.' },
    );
    const submitted = await submit(d, sessionId, 'remember to buy milk');
    assert.equal(submitted.status, 202);

    const request = await events.type('permission_request');
    assert.equal(request.data.toolCall._meta.targetTool, 'notes.add');
    assert.equal(request.data.toolCall._meta.policy, 'write');
    assert.deepEqual(request.data.toolCall.rawInput, { name: 'notes.add', arguments: { text: 'buy milk' } });
    const vote = await d.json('POST', `/session/${sessionId}/permission/${request.data.requestId}`, {
      outcome: { outcome: 'selected', optionId: optionOf(request, 'allow_once') },
    });
    assert.equal(vote.status, 200);
    const terminal = await events.terminal(submitted.body.promptId);
    assert.equal(terminal.type, 'turn_complete');
    events.close();

    const completions = stack.model.completions();
    assert.equal(completions.length, 3);
    const toolMessage = (i: number, id: string) =>
      (completions[i]!.messages as { role: string; tool_call_id?: string; content: string }[]).find((m) => m.role === 'tool' && m.tool_call_id === id)!;
    const listed = JSON.parse(toolMessage(1, 'call_list').content);
    assert.deepEqual(listed.tools.map((t: { name: string }) => t.name), ['notes.add', 'notes.list']);
    const added = JSON.parse(toolMessage(2, 'call_add').content);
    assert.deepEqual(added, { result: { added: { id: 1, text: 'buy milk' }, count: 1 } });
  });

  it('ends the tools when the application stops: they are listed as unavailable', async () => {
    assert.equal(await notes.stop(), 0);
    const core = stack.daemon.daemon.core;
    const tool = await until(() => {
      const t = core.tools.applications.get(core.workspaces.primary().id, 'notes.list')!;
      return t.availability!().available === false && t;
    });
    assert.equal(tool.availability!().code, 'application_disconnected');
  });
});
