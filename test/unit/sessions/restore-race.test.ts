import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { AgentDriver, HistoryItem } from '../../../src/agents/driver.js';
import { BerthError } from '../../../src/protocol/errors/index.js';
import type { SessionManager } from '../../../src/sessions/manager.js';
import type { SqliteSessionRepository } from '../../../src/store/repos/sessions.js';
import type { SqliteTranscriptRepository } from '../../../src/store/repos/transcript.js';
import { WorkspaceRegistry } from '../../../src/workspace/registry.js';
import { ManualClock } from '../../support/events.js';
import { closedSessionRow } from '../../support/history.js';
import { sqliteSessions, type SqliteSessions } from '../../support/sqlite-sessions.js';

/** A driver that only remembers what it was restored from (the restorer is under test, not the agent). */
class RememberingDriver implements AgentDriver {
  readonly harness = 'test';
  restoredFrom: readonly HistoryItem[] | null = null;
  /** The context each turn ran on, in order. */
  readonly turnsRanOn: (readonly HistoryItem[] | null)[] = [];
  async runTurn() {
    this.turnsRanOn.push(this.restoredFrom);
    return { stopReason: 'end_turn' };
  }
  state() {
    return { models: { currentModelId: null, availableModels: [] } };
  }
  async setModel() {}
  restore(history: readonly HistoryItem[]) {
    this.restoredFrom = history;
  }
  dispose() {}
}

/**
 * Racing restores of one session (spec §5.4): a resume while a load is under
 * way is refused with 409 `restore_in_progress`; a second load waits for the
 * first and attaches; a failed restore fails every caller waiting on it and
 * leaves the session restorable. Driver construction is held on a gate, so
 * the races are decided by the test, not by timing.
 */
describe('concurrent restores of one session', () => {
  let setup: SqliteSessions;
  let workspace: string;
  let manager: SessionManager;
  let sessions: SqliteSessionRepository;
  let transcript: SqliteTranscriptRepository;
  let gate: { open: () => void; fail: (err: Error) => void; entered: Promise<void> } | null = null;
  const drivers: RememberingDriver[] = [];
  const clock = new ManualClock();

  /** The next driver construction waits until the test opens (or fails) the gate. */
  function holdNextDriver() {
    let open!: () => void;
    let fail!: (err: Error) => void;
    let signalEntered!: () => void;
    const released = new Promise<void>((resolve, reject) => {
      open = resolve;
      fail = reject;
    });
    const entered = new Promise<void>((r) => (signalEntered = r));
    gate = { open, fail, entered };
    return { released, signalEntered };
  }
  let held: ReturnType<typeof holdNextDriver> | null = null;

  before(() => {
    setup = sqliteSessions({
      clock,
      createDriver: async () => {
        const wait = held;
        held = null;
        if (wait) {
          wait.signalEntered();
          await wait.released;
        }
        const driver = new RememberingDriver();
        drivers.push(driver);
        return driver;
      },
    });
    ({ manager, sessions, transcript, workspace } = setup);
  });
  after(() => setup.close());

  async function storedSession(): Promise<string> {
    const id = randomUUID();
    const ws = new WorkspaceRegistry([workspace]).primary().id;
    await sessions.insert(closedSessionRow(id, ws, 1));
    await transcript.append([
      { sessionId: id, recordId: randomUUID(), kind: 'user_prompt', promptId: 'p', at: 1, data: { content: [{ type: 'text', text: 'hello' }] } },
      { sessionId: id, recordId: randomUUID(), kind: 'agent_message', promptId: 'p', at: 2, data: { text: 'hi there' } },
    ]);
    return id;
  }

  test('a resume racing a load is refused with restore_in_progress; a second load waits and attaches', async () => {
    const id = await storedSession();
    held = holdNextDriver();
    const entered = gate!.entered;
    const first = manager.restore({ action: 'load', sessionId: id });
    await entered;
    const racing = await manager.restore({ action: 'resume', sessionId: id }).then(
      () => assert.fail('the resume was admitted during the load'),
      (e: unknown) => e,
    );
    assert.ok(racing instanceof BerthError);
    assert.equal(racing.code, 'restore_in_progress');
    assert.equal(racing.status, 409);
    assert.deepEqual(
      { reason: racing.details.reason, activeAction: racing.details.activeAction, requestedAction: racing.details.requestedAction },
      { reason: 'restore_in_progress', activeAction: 'load', requestedAction: 'resume' },
    );
    const second = manager.restore({ action: 'load', sessionId: id });
    gate!.open();
    const [a, b] = await Promise.all([first, second]);
    assert.equal(a.attached, false);
    assert.equal(b.attached, true);
    assert.equal(a.session, b.session);
    assert.notEqual(a.clientId, b.clientId);
    assert.equal(a.session.clients.count, 2);
    // The context is rebuilt once the load has answered (Session.reopened).
    await new Promise(setImmediate);
    assert.deepEqual(drivers.at(-1)!.restoredFrom, [
      { kind: 'user', content: [{ type: 'text', text: 'hello' }] },
      { kind: 'assistant', text: 'hi there', toolCalls: [] },
    ]);
    // Once live, a resume is an attach (the SDK's self-heal relies on it).
    const resumed = await manager.restore({ action: 'resume', sessionId: id });
    assert.equal(resumed.attached, true);
  });

  test('a prompt sent as soon as a load answers runs on the whole conversation, and so does a read of the usage', async () => {
    const history = [
      { kind: 'user', content: [{ type: 'text', text: 'hello' }] },
      { kind: 'assistant', text: 'hi there', toolCalls: [] },
    ];
    const read = await manager.restore({ action: 'load', sessionId: await storedSession() });
    // Whatever needs the context before the rebuild came round builds it there and then.
    assert.ok(read.session.usage);
    assert.deepEqual(drivers.at(-1)!.restoredFrom, history);

    const prompted = await manager.restore({ action: 'load', sessionId: await storedSession() });
    const driver = drivers.at(-1)!;
    await prompted.session.submit([{ type: 'text', text: 'and now?' }], { clientId: prompted.clientId });
    while (driver.turnsRanOn.length === 0) await new Promise(setImmediate);
    assert.deepEqual(driver.turnsRanOn, [history]);
  });

  test('a restore that fails fails every caller waiting on it, and the session can be restored afterwards', async () => {
    const id = await storedSession();
    held = holdNextDriver();
    const entered = gate!.entered;
    const first = manager.restore({ action: 'resume', sessionId: id });
    await entered;
    const second = manager.restore({ action: 'resume', sessionId: id });
    gate!.fail(new BerthError('model_not_configured', 'no model'));
    for (const outcome of await Promise.allSettled([first, second])) {
      assert.equal(outcome.status, 'rejected');
      assert.equal((outcome as PromiseRejectedResult).reason.code, 'model_not_configured');
    }
    const retry = await manager.restore({ action: 'resume', sessionId: id });
    assert.equal(retry.attached, false);
  });

  test('open brings back a session the daemon lost, and leaves one closed on purpose closed', async () => {
    const lost = await storedSession();
    await sessions.update(lost, { closeReason: 'daemon_lost' }, 3);
    const closed = await storedSession();
    const reopened = await manager.open(lost);
    assert.equal(reopened.id, lost);
    await reopened.flushWrites();
    assert.equal((await sessions.get(lost))?.closeReason, null, 'the stored row says open again');
    const refusal = (id: string) =>
      manager.open(id).then(
        () => assert.fail(`session ${id} was opened`),
        (e: unknown) => e,
      );
    assert.equal(((await refusal(closed)) as BerthError).code, 'session_not_found');
    assert.equal(((await refusal('not-a-session-id')) as BerthError).code, 'session_not_found');
    const again = await manager.restore({ action: 'load', sessionId: lost });
    assert.equal(again.attached, true, 'the reopened session was live');
    const fresh = await manager.restore({ action: 'load', sessionId: closed });
    assert.equal(fresh.attached, false, 'the closed session was not reopened');
  });
});
