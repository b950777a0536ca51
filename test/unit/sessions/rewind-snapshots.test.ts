import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { rewindSnapshots } from '../../../src/sessions/rewind-snapshots.js';
import { liveRecords } from '../../../src/sessions/rewound.js';
import { openStore, type Store } from '../../../src/store/db.js';
import { SqliteSessionRepository } from '../../../src/store/repos/sessions.js';
import { SqliteTranscriptRepository } from '../../../src/store/repos/transcript.js';
import type { NewTranscriptRecord } from '../../../src/transcript/records.js';
import { seededRandom } from '../../support/fuzz.js';
import { closedSessionRow } from '../../support/history.js';
import { removeDir, tempDir } from '../../support/tmp.js';

/**
 * The turn listing reads only the prompts and the rewinds; it must list exactly the prompts that
 * the whole-transcript reading (`liveRecords`, what a load and the model context use) keeps.
 */
describe('rewind snapshots read by kind', () => {
  let home: string;
  let store: Store;
  let sessions: SqliteSessionRepository;
  let transcript: SqliteTranscriptRepository;

  before(() => {
    home = tempDir('berth-home-');
    store = openStore(home);
    sessions = new SqliteSessionRepository(store.db);
    transcript = new SqliteTranscriptRepository(store.db);
  });
  after(() => {
    store.close();
    removeDir(home);
  });

  /** A session of random turns with rewinds to a prompt, to just after a turn, by a /rewind command, and to nowhere. */
  async function randomSession(seed: number): Promise<string> {
    const rand = seededRandom(seed);
    const sessionId = randomUUID();
    await sessions.insert(closedSessionRow(sessionId, 'ws', 1));
    const written: { recordId: string; kind: string; promptId: string | null }[] = [];
    let at = 1;
    const write = async (kind: string, promptId: string | null, data: Record<string, unknown> = {}) => {
      const record: NewTranscriptRecord = { sessionId, recordId: randomUUID(), kind, promptId, at: at++, data };
      await transcript.append([record]);
      written.push(record);
    };
    for (let turn = 0; turn < 12; turn++) {
      const promptId = rand() < 0.1 ? null : randomUUID();
      await write('user_prompt', promptId, { content: [{ type: 'text', text: `turn ${turn}` }] });
      for (let k = Math.floor(rand() * 4); k > 0; k--) await write(rand() < 0.5 ? 'agent_message' : 'tool_call', promptId);
      await write('turn_end', promptId);
      if (rand() < 0.35 && written.length > 2) {
        const from = written[Math.floor(rand() * written.length)]!;
        const to = rand() < 0.8 ? written.at(-1)!.recordId : 'not-a-record';
        const fromId = rand() < 0.1 ? 'not-a-record' : from.recordId;
        // A /rewind command records its rewind under its own running prompt, which the range covers.
        const viaCommand = rand() < 0.3;
        if (viaCommand) await write('user_prompt', randomUUID(), { content: [{ type: 'text', text: '/rewind' }] });
        await write('rewind', viaCommand ? written.at(-1)!.promptId : null, { fromRecordId: fromId, toRecordId: to });
      }
    }
    return sessionId;
  }

  const ports = (sessionId: string) => ({ sessionId, transcript, checkpoints: { effects: async () => [] }, flushTranscript: async () => {} });

  test('lists the prompts the whole-transcript reading keeps, with the same turn indexes, over 60 random sessions', async () => {
    let rewound = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const sessionId = await randomSession(seed);
      const all = await transcript.all(sessionId);
      const kept = liveRecords(all).filter((r) => r.kind === 'user_prompt');
      if (kept.length < all.filter((r) => r.kind === 'user_prompt').length) rewound++;
      const expected = kept.flatMap((r, turnIndex) => (r.promptId === null ? [] : [{ promptId: r.promptId, turnIndex, at: r.at, filesChanged: 0 }]));
      assert.deepEqual(await rewindSnapshots(ports(sessionId)), expected, `seed ${seed}`);
    }
    assert.ok(rewound >= 20, `the sessions exercise rewinds (${rewound} of 60 lost a prompt to one)`);
  });

  test('counts the files each kept turn changed, leaving out effects undone or still pending', async () => {
    const sessionId = randomUUID();
    await sessions.insert(closedSessionRow(sessionId, 'ws', 1));
    const p = randomUUID();
    await transcript.append([{ sessionId, recordId: randomUUID(), kind: 'user_prompt', promptId: p, at: 1, data: {} }]);
    const effect = (path: string, extra: object = {}) => ({ promptId: p, path, undoneBy: null, after: 'written', ...extra });
    const effects = [effect('a'), effect('a'), effect('b'), effect('c', { undoneBy: 'r1' }), effect('d', { after: 'pending' })];
    const listed = await rewindSnapshots({ ...ports(sessionId), checkpoints: { effects: async () => effects as never } });
    assert.deepEqual(listed, [{ promptId: p, turnIndex: 0, at: 1, filesChanged: 2 }]);
  });
});
