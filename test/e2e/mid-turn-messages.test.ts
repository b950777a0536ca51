import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TEST_AGENT_ID, withAgents } from '../support/acp-stack.js';
import { writeReply } from '../support/model-script.js';
import { stackPerSuite, type Stack } from '../support/stack.js';
import { EventReader, newSession, optionOf, select, submit } from '../support/session-client.js';

type Message = { role: string; content: unknown };
/** The text of every user message a chat request carried, in order. */
const userTexts = (body: { messages: Message[] }) =>
  body.messages.filter((m) => m.role === 'user').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));

/**
 * qwen serve's mid-turn messages on Berth (README, "The qwen Web Shell against Berth"): what a person
 * types while a turn runs reaches the model before the turn's next request, in qwen's wire shapes.
 */
describe('mid-turn messages', () => {
  let s: Stack;
  stackPerSuite((stack) => (s = stack));

  /** A session whose turn waits on a permission request for a write: a turn running, held still. */
  async function heldTurn(file: string) {
    const d = s.daemon;
    const { sessionId, clientId } = await newSession(d);
    const as = { 'x-qwen-client-id': clientId };
    const events = await EventReader.open(d, sessionId);
    const promptId = (await submit(d, sessionId, `write ${file}`, {}, as)).body.promptId as string;
    const request = await events.type('permission_request');
    const allow = () => d.json('POST', `/session/${sessionId}/permission/${request.data.requestId}`, select(optionOf(request, 'allow_once')), as);
    return { sessionId, as, events, promptId, allow };
  }

  it('a message typed during a turn is in the model’s next request after the tool result, announced and recorded in place', async () => {
    const d = s.daemon;
    s.model.enqueue(writeReply('mid-a.txt', 'a\n'), { kind: 'reply', text: 'Done, and noted' });
    const before = s.model.completions().length;
    const t = await heldTurn('mid-a.txt');
    const path = `/session/${t.sessionId}/mid-turn-message`;
    const sent = await d.json('POST', path, { message: '  also add a title  ', messageId: 'webui_1' }, t.as);
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    assert.deepEqual(sent.body, { accepted: true, messageId: 'webui_1' });
    const added = await t.events.type('pending_prompt_added', (e) => e.data.promptId === 'webui_1');
    assert.equal(added.data.text, 'also add a title');
    const again = await d.json('POST', path, { message: 'also add a title', messageId: 'webui_1' }, t.as);
    assert.deepEqual(again.body, { accepted: true, messageId: 'webui_1' }, 'a retry is accepted once, never queued twice');
    const other = await d.json('POST', path, { message: 'something else', messageId: 'webui_1' }, t.as);
    assert.deepEqual(other.body.accepted, false);
    assert.equal(other.body.reason, 'message_id_conflict');
    const waiting = await d.json('GET', `/session/${t.sessionId}/mid-turn-messages`, undefined, t.as);
    assert.deepEqual(waiting.body, { messages: [{ messageId: 'webui_1', text: 'also add a title' }], settledMessageIds: [], promotedMessageIds: [] });

    await t.allow();
    assert.equal((await t.events.terminal(t.promptId)).data.stopReason, 'end_turn');
    const injected = await t.events.type('mid_turn_message_injected');
    assert.equal(injected.promptId, t.promptId);
    assert.deepEqual(injected.data.messages, ['also add a title']);
    assert.deepEqual(injected.data.messageIds, ['webui_1']);
    assert.deepEqual(injected.data.items, [{ content: [{ type: 'text', text: 'also add a title' }] }]);

    const second = s.model.completions()[before + 1] as { messages: Message[] };
    const roles = second.messages.map((m) => m.role);
    assert.deepEqual(roles.slice(-2), ['tool', 'user'], 'the message follows the tool result');
    assert.equal(userTexts(second).at(-1), 'also add a title');

    const settled = await d.json('GET', `/session/${t.sessionId}/mid-turn-messages`, undefined, t.as);
    assert.deepEqual(settled.body, { messages: [], settledMessageIds: ['webui_1'], promotedMessageIds: [] });
    // The transcript shows it where it happened: after the tool result, inside the same turn.
    const page = await d.json('GET', `/session/${t.sessionId}/transcript?limit=200`, undefined, t.as);
    const flat = JSON.stringify(page.body);
    assert.ok(flat.indexOf('"source":"mid-turn-message"') > flat.indexOf('tool_call_update'), flat);
    assert.ok(flat.indexOf('"source":"mid-turn-message"') < flat.indexOf('Done, and noted'), flat);
    const md = await (await d.fetch(`/session/${t.sessionId}/export?format=md`)).text();
    assert.ok(md.indexOf('also add a title') > md.indexOf('mid-a.txt') && md.indexOf('also add a title') < md.indexOf('Done, and noted'), md);
    // A load after the session closed replays it as a user message inside the turn.
    t.events.close();
    await d.json('DELETE', `/session/${t.sessionId}`, undefined, t.as);
    const loaded = await d.json('POST', `/session/${t.sessionId}/load`, {});
    const echo = loaded.body.compactedReplay.find((e: any) => e.data?.update?._meta?.source === 'mid-turn-message');
    assert.equal(echo?.data.update.sessionUpdate, 'user_message_chunk', JSON.stringify(loaded.body.compactedReplay));
    assert.deepEqual(echo.data.update.content, { type: 'text', text: 'also add a title' });
    assert.equal(echo.promptId ?? echo.data.update._meta.promptId, t.promptId);
  });

  it('a message withdrawn before the hand-off never reaches the model', async () => {
    const d = s.daemon;
    s.model.enqueue(writeReply('mid-b.txt', 'b\n'), { kind: 'reply', text: 'Done without it' });
    const before = s.model.completions().length;
    const t = await heldTurn('mid-b.txt');
    const sent = await d.json('POST', `/session/${t.sessionId}/mid-turn-message`, { message: 'never mind this' }, t.as);
    assert.equal(sent.body.accepted, true);
    const id = sent.body.messageId as string;
    assert.ok(id.length > 0, 'an id is made up when the client names none');
    const removed = await d.json('DELETE', `/session/${t.sessionId}/mid-turn-messages/${id}`, undefined, t.as);
    assert.deepEqual(removed.body, { removed: true });
    const completed = await t.events.type('pending_prompt_completed', (e) => e.data.promptId === id);
    assert.equal(completed.data.state, 'removed');
    assert.deepEqual((await d.json('DELETE', `/session/${t.sessionId}/mid-turn-messages/${id}`, undefined, t.as)).body, { removed: false });
    await t.allow();
    await t.events.terminal(t.promptId);
    const second = s.model.completions()[before + 1] as { messages: Message[] };
    assert.equal(second.messages.at(-1)?.role, 'tool');
    assert.ok(!JSON.stringify(second).includes('never mind this'));
    assert.equal(t.events.seen.some((e) => e.type === 'mid_turn_message_injected'), false);
    t.events.close();
  });

  it('an idle session refuses with qwen’s session_idle, so the client sends a prompt instead', async () => {
    const d = s.daemon;
    const { sessionId, clientId } = await newSession(d);
    const r = await d.json('POST', `/session/${sessionId}/mid-turn-message`, { message: 'hello?' }, { 'x-qwen-client-id': clientId });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { accepted: false, reason: 'session_idle' });
  });

  it('a message no turn took runs as a prompt of its own under its messageId when the turn ends', async () => {
    const d = s.daemon;
    const { sessionId, clientId } = await newSession(d);
    const as = { 'x-qwen-client-id': clientId };
    const events = await EventReader.open(d, sessionId);
    s.model.enqueue({ kind: 'hang', text: 'thinking' });
    const first = (await submit(d, sessionId, 'think', {}, as)).body.promptId as string;
    await events.type('session_update', (e) => e.promptId === first && e.data.update?.sessionUpdate === 'agent_message_chunk');
    const sent = await d.json('POST', `/session/${sessionId}/mid-turn-message`, { message: 'then say bye', messageId: 'late-1' }, as);
    assert.equal(sent.body.accepted, true);
    s.model.enqueue({ kind: 'reply', text: 'Bye' });
    await d.json('POST', `/session/${sessionId}/cancel`, {}, as);
    assert.equal((await events.terminal(first)).data.stopReason, 'cancelled');
    assert.equal((await events.terminal('late-1')).data.stopReason, 'end_turn');
    assert.ok(events.seen.some((e) => e.type === 'pending_prompt_started' && e.data.promptId === 'late-1'));
    const last = s.model.completions().at(-1) as { messages: Message[] };
    assert.equal(userTexts(last).at(-1), 'then say bye');
    const snap = await d.json('GET', `/session/${sessionId}/mid-turn-messages`, undefined, as);
    assert.deepEqual(snap.body.promotedMessageIds, ['late-1']);
    events.close();
  });

  it('a message already run as a queued prompt of its own is withdrawn by its mid-turn DELETE', async () => {
    const d = s.daemon;
    const { sessionId, clientId } = await newSession(d);
    const as = { 'x-qwen-client-id': clientId };
    const events = await EventReader.open(d, sessionId);
    s.model.enqueue({ kind: 'hang', text: 'thinking' }, { kind: 'hang', text: 'still thinking' });
    const first = (await submit(d, sessionId, 'think', {}, as)).body.promptId as string;
    await events.type('session_update', (e) => e.promptId === first && e.data.update?.sessionUpdate === 'agent_message_chunk');
    for (const messageId of ['late-a', 'late-b']) {
      assert.equal((await d.json('POST', `/session/${sessionId}/mid-turn-message`, { message: messageId, messageId }, as)).body.accepted, true);
    }
    await d.json('POST', `/session/${sessionId}/cancel`, {}, as);
    // late-a runs (and hangs); late-b waits behind it as a prompt.
    await events.type('session_update', (e) => e.promptId === 'late-a' && e.data.update?.sessionUpdate === 'agent_message_chunk');
    const removed = await d.json('DELETE', `/session/${sessionId}/mid-turn-messages/late-b`, undefined, as);
    assert.deepEqual(removed.body, { removed: true });
    assert.equal((await events.terminal('late-b')).data.stopReason, 'cancelled');
    await d.json('POST', `/session/${sessionId}/cancel`, {}, as);
    await events.terminal('late-a');
    assert.equal(events.seen.some((e) => e.type === 'pending_prompt_started' && e.data.promptId === 'late-b'), false, 'late-b never ran');
    events.close();
  });

  it('at most 20 messages wait in a session; the next is refused with queue_full', async () => {
    const d = s.daemon;
    s.model.enqueue(writeReply('mid-c.txt', 'c\n'));
    const t = await heldTurn('mid-c.txt');
    for (let i = 0; i < 20; i++) {
      const r = await d.json('POST', `/session/${t.sessionId}/mid-turn-message`, { message: `m${i}` }, t.as);
      assert.equal(r.body.accepted, true, JSON.stringify(r.body));
    }
    const full = await d.json('POST', `/session/${t.sessionId}/mid-turn-message`, { message: 'one too many' }, t.as);
    assert.equal(full.status, 200);
    assert.equal(full.body.accepted, false);
    assert.equal(full.body.reason, 'queue_full');
    assert.match(full.body.message, /20/);
    await d.json('DELETE', `/session/${t.sessionId}`, undefined, t.as);
    t.events.close();
  });

  it('bad input is refused whole with a status and code', async () => {
    const d = s.daemon;
    const { sessionId, clientId } = await newSession(d);
    const as = { 'x-qwen-client-id': clientId };
    const path = `/session/${sessionId}/mid-turn-message`;
    const cases: [unknown, string][] = [
      [{ message: '   ' }, 'invalid_mid_turn_message'],
      [{}, 'invalid_mid_turn_message'],
      [{ message: 'x'.repeat(16 * 1024 + 1) }, 'invalid_mid_turn_message'],
      [{ message: 'hi', content: [] }, 'invalid_mid_turn_message'],
      [{ message: 'hi', content: [{ type: 'text', text: 'no' }] }, 'invalid_mid_turn_message'],
      [{ message: 'hi', content: [{ type: 'image', attachmentId: 'a', size: 3, mimeType: 'image/png' }] }, 'invalid_mid_turn_message'],
      [{ message: 'hi', content: [{ type: 'image', data: 'AAAA', mimeType: 'image/svg+xml' }] }, 'invalid_mid_turn_message'],
      [{ message: 'hi', messageId: '' }, 'invalid_message_id'],
      [{ message: 'hi', messageId: 'x'.repeat(129) }, 'invalid_message_id'],
      [{ message: 'hi', messageId: 7 }, 'invalid_message_id'],
      [{ message: 'hi', eventDetailMode: 'loud' }, 'invalid_event_detail_mode'],
    ];
    for (const [body, code] of cases) {
      const r = await d.json('POST', path, body, as);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.body.code, code, JSON.stringify(body));
    }
    const unknown = await d.json('POST', '/session/00000000-0000-4000-8000-000000000000/mid-turn-message', { message: 'hi' });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.code, 'session_not_found');
    const stranger = await d.json('POST', path, { message: 'hi' }, { 'x-qwen-client-id': 'not-a-client' });
    assert.equal(stranger.body.code, 'invalid_client_id');
  });
});

/** An external ACP agent takes no message in the middle of its turn: what is typed waits and runs as its next prompt. */
describe('mid-turn messages to an external agent', () => {
  let s: Stack;
  stackPerSuite((stack) => (s = stack), withAgents());

  it('the message waits for the turn to end, then runs as a prompt of its own under its messageId', async () => {
    const d = s.daemon;
    const { sessionId, clientId } = await newSession(d, { modelServiceId: TEST_AGENT_ID });
    const as = { 'x-qwen-client-id': clientId };
    const events = await EventReader.open(d, sessionId);
    const first = (await submit(d, sessionId, 'wait', {}, as)).body.promptId as string;
    await events.type('session_update', (e) => e.promptId === first && e.data.update?.content?.text === 'waiting');
    const sent = await d.json('POST', `/session/${sessionId}/mid-turn-message`, { message: 'say after the wait', messageId: 'acp-1' }, as);
    assert.deepEqual(sent.body, { accepted: true, messageId: 'acp-1' });
    await d.json('POST', `/session/${sessionId}/cancel`, {}, as);
    assert.equal((await events.terminal(first)).data.stopReason, 'cancelled');
    assert.equal((await events.terminal('acp-1')).data.stopReason, 'end_turn');
    const said = events.seen.filter((e) => e.promptId === 'acp-1' && e.data.update?.sessionUpdate === 'agent_message_chunk').map((e) => e.data.update.content.text);
    assert.deepEqual(said, ['after the wait']);
    assert.equal(events.seen.some((e) => e.type === 'mid_turn_message_injected'), false, 'never injected into the agent’s turn');
    events.close();
  });
});
