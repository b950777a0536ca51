import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestDaemon, type TestDaemon, sqliteDb } from '../support/daemon.js';
import { EventReader, newSession } from '../support/session-client.js';

/**
 * spec §7.6: when the transcript cannot be written, the session goes on live
 * and says so — one `session_recording_degraded` event, and every later
 * `session_snapshot` reports `recordingDegraded: true`. The failure is a real
 * SQLite one: the transcript table is renamed away under the running daemon.
 */
let d: TestDaemon;
before(async () => {
  d = await startTestDaemon();
});
after(() => d.close());

test('a transcript write that fails is announced once and shows in every later snapshot', async () => {
  const { sessionId, clientId } = await newSession(d);
  const headers = { 'x-qwen-client-id': clientId };
  const db = sqliteDb(d.daemon);
  const events = await EventReader.open(d, sessionId);
  const rename = (name: string) => {
    const patched = d.json('PATCH', `/session/${sessionId}/metadata`, { displayName: name }, headers);
    return patched.then(async (r) => {
      assert.equal(r.status, 200, 'the live session keeps answering');
      await events.type('session_metadata_updated', (e) => e.data.displayName === name);
    });
  };
  let away = true;
  db.exec('ALTER TABLE transcript RENAME TO transcript_unwritable');
  try {
    await rename('first name');
    await rename('second name');
    db.exec('ALTER TABLE transcript_unwritable RENAME TO transcript');
    away = false;
    // Everything the two failed writes caused was published before this event.
    await rename('third name');
    const degraded = events.seen.filter((e) => e.type === 'session_recording_degraded');
    assert.equal(degraded.length, 1, 'announced once, not per failed write');
    assert.deepEqual(degraded[0]!.data, { sessionId, reason: 'write_failed' });

    const later = await EventReader.open(d, sessionId, { lastEventId: null, query: '?snapshot=1' });
    try {
      const snapshot = await later.type('session_snapshot');
      assert.equal(snapshot.data.recordingDegraded, true);
    } finally {
      later.close();
    }
  } finally {
    if (away) db.exec('ALTER TABLE transcript_unwritable RENAME TO transcript');
    events.close();
  }
});

test('a session whose transcript is written reports recordingDegraded false', async () => {
  const { sessionId } = await newSession(d);
  const stream = await EventReader.open(d, sessionId, { lastEventId: null, query: '?snapshot=1' });
  try {
    assert.equal((await stream.type('session_snapshot')).data.recordingDegraded, false);
  } finally {
    stream.close();
  }
});
