import assert from 'node:assert/strict';
import type { ScriptedModel } from '../../src/devtools/scripted-model/index.js';
import type { TestDaemon } from './daemon.js';
import { EventReader, select, submit, type WireEvent } from './session-client.js';

/** A turn run by `votedTurn`: every event seen, the permission requests asked, and the settled tool calls. */
export interface VotedTurn {
  readonly events: WireEvent[];
  readonly asked: WireEvent[];
  /** The `tool_call_update` events with a final status (completed or failed), in order. */
  readonly settled: WireEvent[];
}

/**
 * One prompt whose scripted model makes `calls` in one reply and then says done; each
 * permission request is answered with the option `choose(request)` names (a vote must be
 * taken: 200). Returns once the prompt's own terminal event arrived.
 */
export async function votedTurn(
  d: TestDaemon,
  model: ScriptedModel,
  sessionId: string,
  calls: object[],
  choose: (request: WireEvent) => string = () => 'proceed_once',
): Promise<VotedTurn> {
  model.enqueue({ kind: 'reply', toolCalls: calls as never }, { kind: 'reply', text: 'done' });
  const events = await EventReader.open(d, sessionId, { lastEventId: null });
  const { promptId } = (await submit(d, sessionId, 'do the work')).body;
  const asked: WireEvent[] = [];
  for (;;) {
    const e = await events.until(
      (x) => (x.type === 'permission_request' && !asked.includes(x)) || ((x.type === 'turn_complete' || x.type === 'turn_error') && x.data.promptId === promptId),
    );
    if (e.type !== 'permission_request') break;
    asked.push(e);
    assert.equal((await d.json('POST', `/session/${sessionId}/permission/${e.data.requestId}`, select(choose(e)))).status, 200);
  }
  events.close();
  const settled = events.seen.filter(
    (e) => e.type === 'session_update' && e.data.update.sessionUpdate === 'tool_call_update' && ['completed', 'failed'].includes(e.data.update.status),
  );
  return { events: events.seen, asked, settled };
}
