import assert from 'node:assert/strict';
import { test } from 'node:test';
import { systemClock } from '../../../src/clock.js';
import type { EventEnvelope } from '../../../src/events/types.js';
import { silentLogger } from '../../../src/log.js';
import { TranscriptRecorder } from '../../../src/sessions/recorder.js';
import type { NewTranscriptRecord, TranscriptRepository } from '../../../src/transcript/records.js';
import { WriteChain } from '../../../src/write-chain.js';

/** A repository that remembers each append call's kinds. */
function recordingRepo(): { repo: TranscriptRepository; appends: string[][] } {
  const appends: string[][] = [];
  const repo = { append: async (records: readonly NewTranscriptRecord[]) => void appends.push(records.map((r) => r.kind)) };
  return { repo: repo as unknown as TranscriptRepository, appends };
}

const event = (type: string, data: Record<string, unknown>): EventEnvelope =>
  ({ id: 1, type, promptId: 'p1', data: { sessionId: 's1', ...data } }) as unknown as EventEnvelope;

const answer = event('session_update', { update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'OK.' } } });
const plan = event('session_update', { update: { sessionUpdate: 'plan', entries: [] } });
const end = event('turn_complete', { stopReason: 'end_turn' });

test('the records of one moment are stored in one write, after that moment', async () => {
  const { repo, appends } = recordingRepo();
  const writes = new WriteChain(silentLogger(), {});
  const recorder = new TranscriptRecorder('s1', repo, systemClock, writes);
  recorder.observe(answer);
  recorder.observe(end);
  assert.deepEqual(appends, [], 'nothing is written while the event is being published');
  await writes.flush();
  assert.deepEqual(appends, [['agent_message', 'turn_end']]);
});

test('a record made after another write of the session waits for that write, in a write of its own', async () => {
  const { repo, appends } = recordingRepo();
  const writes = new WriteChain(silentLogger(), {});
  const order: string[] = [];
  const recorder = new TranscriptRecorder('s1', repo, systemClock, writes);
  recorder.observe(plan);
  writes.submit('prompt settle', async () => void order.push(`settle after ${appends.length} appends`));
  recorder.observe(end);
  await recorder.flush();
  assert.deepEqual(appends, [['plan'], ['turn_end']]);
  assert.deepEqual(order, ['settle after 1 appends']);
});
