import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AgentDriver } from '../../../src/agents/driver.js';
import type { SessionManager } from '../../../src/sessions/manager.js';
import type { PromptRepository } from '../../../src/sessions/records.js';
import { ManualClock } from '../../support/events.js';
import { sqliteSessions, type SqliteSessions } from '../../support/sqlite-sessions.js';

/** A driver whose turns end only when the test lets them, and which notes what the ledger said when each began. */
class HeldDriver implements AgentDriver {
  readonly harness = 'test';
  private release: (() => void) | undefined;
  constructor(private readonly onTurn: () => void) {}
  async runTurn() {
    this.onTurn();
    await new Promise<void>((r) => (this.release = r));
    return { stopReason: 'end_turn' };
  }
  finishTurn() {
    this.release?.();
  }
  state() {
    return { models: { currentModelId: null, availableModels: [] } };
  }
  async setModel() {}
  restore() {}
  dispose() {}
}

/**
 * A prompt's start mark (docs/architecture.md, Persistence: stored before the turn's first
 * event). A prompt admitted to an idle session starts at once, so its row is stored with the
 * mark and the turn writes no second one; a prompt that waits behind another is marked when
 * its turn begins.
 */
describe('the start mark of a prompt', () => {
  let setup: SqliteSessions;
  let workspace: string;
  let manager: SessionManager;
  let prompts: PromptRepository;
  const startWrites: string[] = [];
  const turnsBegan: Array<() => void> = [];
  const drivers: HeldDriver[] = [];
  const clock = new ManualClock();

  before(() => {
    setup = sqliteSessions({
      clock,
      createDriver: async () => {
        const driver = new HeldDriver(() => turnsBegan.shift()?.());
        drivers.push(driver);
        return driver;
      },
      // The ledger as stored, its start writes counted.
      prompts: (ledger) => ({
        admit: (row) => ledger.admit(row),
        started: (id, at) => (startWrites.push(id), ledger.started(id, at)),
        settle: (...args) => ledger.settle(...args),
        refused: (...args) => ledger.refused(...args),
        unsettled: (sessionId) => ledger.unsettled(sessionId),
        settled: (sessionId) => ledger.settled(sessionId),
      }),
    });
    ({ manager, prompts, workspace } = setup);
  });
  after(() => setup.close());

  const turnBegins = () => new Promise<void>((r) => turnsBegan.push(r));
  const startedAtOf = async (sessionId: string, promptId: string) => (await prompts.unsettled(sessionId)).find((p) => p.id === promptId)?.startedAt;

  test('a prompt admitted to an idle session is stored started, and its turn writes no start mark', async () => {
    const { session, clientId } = await manager.create({ cwd: workspace, sessionScope: 'thread' }, undefined);
    const began = turnBegins();
    const { promptId } = await session.submit([{ type: 'text', text: 'go' }], { clientId });
    assert.equal(await startedAtOf(session.id, promptId), clock.now(), 'the row is started before the 202');
    await began;
    assert.deepEqual(startWrites, []);
    drivers.at(-1)!.finishTurn();
  });

  test('a prompt queued behind a running one is stored unstarted, and marked when its turn begins', async () => {
    startWrites.length = 0;
    const { session, clientId } = await manager.create({ cwd: workspace, sessionScope: 'thread' }, undefined);
    const driver = drivers.at(-1)!;
    const firstBegan = turnBegins();
    const first = await session.submit([{ type: 'text', text: 'one' }], { clientId });
    await firstBegan;
    const second = await session.submit([{ type: 'text', text: 'two' }], { clientId });
    assert.equal(await startedAtOf(session.id, second.promptId), null);
    clock.t += 5;
    const secondBegan = turnBegins();
    driver.finishTurn();
    await secondBegan;
    assert.deepEqual(startWrites, [second.promptId]);
    assert.equal(await startedAtOf(session.id, second.promptId), clock.now());
    assert.notEqual(first.promptId, second.promptId);
    driver.finishTurn();
  });
});
