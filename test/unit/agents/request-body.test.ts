import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chatRequestBody, type ChatRequestHead } from '../../../src/agents/builtin/request-body.js';
import { modelTools } from '../../../src/agents/builtin/tools.js';
import { toolDef } from '../../support/turn-io.js';

const head: ChatRequestHead = {
  model: 'm',
  messages: [{ role: 'user', content: 'say "hi"\n' }],
  stream: true,
  stream_options: { include_usage: true },
};

test('the request body is the JSON of the whole request, tool list included', () => {
  const { tools } = modelTools([toolDef('workspace_read'), toolDef('a.b/c')]);
  const body = chatRequestBody(head, tools);
  assert.deepEqual(JSON.parse(body), { ...head, tools });
  // A second request reuses the cached tool text and still says the same.
  assert.deepEqual(JSON.parse(chatRequestBody(head, tools)), { ...head, tools });
});

test('a request without tools has no tools key', () => {
  assert.deepEqual(JSON.parse(chatRequestBody(head, [])), head);
});

test('the same definitions give back the same function tool objects, turn after turn', () => {
  const defs = [toolDef('workspace_read'), toolDef('workspace_list')];
  const first = modelTools(defs).tools;
  const second = modelTools([...defs]).tools;
  assert.equal(first.length, 3);
  first.forEach((tool, i) => assert.equal(second[i], tool));
});

test('a definition whose wire name changes gets a tool with the new name', () => {
  const def = toolDef('x.y');
  const alone = modelTools([def]);
  const clashing = modelTools([toolDef('x_y'), def]);
  const names = clashing.tools.map((t) => (t.type === 'function' ? t.function.name : ''));
  assert.deepEqual(names, ['x_y', 'x_y_2', 'update_plan']);
  assert.equal(clashing.toolName('x_y_2'), 'x.y');
  assert.notEqual(clashing.tools[1], alone.tools[0]);
});
