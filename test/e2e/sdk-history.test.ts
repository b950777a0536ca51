import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DaemonHttpError, DaemonSessionClient, type DaemonClient, type DaemonEvent } from '@qwen-code/sdk/daemon';
import { storeGeneratedSession } from '../support/history.js';
import { EventLog, sdkClient, text } from '../support/sdk.js';
import { stackPerSuite, type Stack } from '../support/stack.js';

/**
 * Issue 4 acceptance through the official `@qwen-code/sdk` client: it loads,
 * resumes and pages a transcript, exports it, and a resumed session's next
 * turn carries the earlier conversation to the scripted model.
 */

const updateText = (e: DaemonEvent) => ((e.data as any)?.update ?? e.data)?.content?.text as string | undefined;

describe('the official SDK restores and reads history', { timeout: 60_000 }, () => {
  let stack: Stack;
  let client: DaemonClient;

  stackPerSuite((started) => {
    stack = started;
    client = sdkClient(started);
  });

  /** A session with one finished turn, closed through the SDK. */
  async function closedSession(prompt: string, answer: string): Promise<string> {
    const session = await DaemonSessionClient.createOrAttach(client, { workspaceCwd: stack.daemon.workspace, sessionScope: 'thread' });
    stack.model.enqueue({ kind: 'reply', reasoning: 'Let me think.', text: answer });
    assert.equal((await session.prompt({ prompt: text(prompt) })).stopReason, 'end_turn');
    await client.closeSession(session.sessionId, session.clientId);
    return session.sessionId;
  }

  test('DaemonSessionClient.load rebuilds a closed session: a complete replay snapshot, then live events after it', async () => {
    const sessionId = await closedSession('Name three colours', 'Red, green and blue.');
    const loaded = await DaemonSessionClient.load(client, sessionId, { workspaceCwd: stack.daemon.workspace, historyPageSize: 50, compactedReplayMode: 'full' });
    assert.equal(loaded.attached, false);
    assert.equal(loaded.replaySnapshotComplete, true);
    assert.equal(loaded.historyHasMore, false);
    const snapshot = loaded.consumeReplaySnapshot();
    const texts = snapshot.compactedReplay.map(updateText).filter(Boolean);
    assert.deepEqual(texts, ['Name three colours', 'Let me think.', 'Red, green and blue.']);
    const snapshotEnd = loaded.lastEventId!;
    assert.equal(snapshotEnd, snapshot.compactedReplay.at(-1)!.id);

    const log = new EventLog((signal) => loaded.events({ signal }));
    try {
      stack.model.enqueue({ kind: 'reply', text: 'And yellow.' });
      const result = await loaded.prompt({ prompt: text('One more?') });
      assert.equal(result.stopReason, 'end_turn');
      const first = await log.waitFor((e) => e.type === 'session_update');
      assert.equal(first.id, snapshotEnd + 1);
      assert.equal(log.events.filter((e) => e.type === 'state_resync_required').length, 0);
    } finally {
      await log.close();
    }
  });

  test('DaemonSessionClient.resume continues the conversation: the model receives everything said before', async () => {
    const sessionId = await closedSession('My name is Ada.', 'Nice to meet you, Ada.');
    const resumed = await DaemonSessionClient.resume(client, sessionId, { workspaceCwd: stack.daemon.workspace });
    assert.equal(resumed.attached, false);
    assert.equal(resumed.lastEventId, 0);
    const before = stack.model.completions().length;
    stack.model.enqueue({ kind: 'reply', text: 'Your name is Ada.' });
    assert.equal((await resumed.prompt({ prompt: text('What is my name?') })).stopReason, 'end_turn');
    const sent = stack.model.completions()[before]!;
    const conversation = sent.messages.filter((m: any) => m.role !== 'system').map((m: any) => [m.role, m.content]);
    assert.deepEqual(conversation, [
      ['user', 'My name is Ada.'],
      ['assistant', 'Nice to meet you, Ada.'],
      ['user', 'What is my name?'],
    ]);
  });

  test('resumeSession and loadSession on a live session attach, each with a fresh client id', async () => {
    const session = await DaemonSessionClient.createOrAttach(client, { workspaceCwd: stack.daemon.workspace, sessionScope: 'thread' });
    const attached = await client.resumeSession(session.sessionId, { workspaceCwd: stack.daemon.workspace });
    assert.equal(attached.attached, true);
    assert.ok(attached.clientId && attached.clientId !== session.clientId);
    const loadAttached = await client.loadSession(session.sessionId, { workspaceCwd: stack.daemon.workspace });
    assert.equal(loadAttached.attached, true);
    assert.ok(Array.isArray(loadAttached.compactedReplay) && Array.isArray(loadAttached.liveJournal));
    const status = await client.sessionStatus(session.sessionId);
    assert.equal(status.clientCount, 3);
  });

  test('getSessionTranscriptPage pages forward with cursors, backward, and before a record id', async () => {
    const sessionId = await storeGeneratedSession(stack.daemon, 200); // 1,200 records
    const seen: string[] = [];
    let page = await client.getSessionTranscriptPage(sessionId, { limit: 500 });
    for (;;) {
      for (const e of page.events) {
        const id = (e.data as any)._meta?.['qwen.session.recordId'] ?? (e._meta as any)?.['qwen.session.recordId'];
        if (seen.at(-1) !== id) seen.push(id);
      }
      if (!page.hasMore) break;
      page = await client.getSessionTranscriptPage(sessionId, { cursor: page.nextCursor!, limit: 500 });
    }
    assert.equal(seen.length, 1200);
    assert.equal(new Set(seen).size, 1200);

    const newest = await client.getSessionTranscriptPage(sessionId, { direction: 'backward', limit: 6 });
    assert.equal(newest.events.at(-1)!.type, 'turn_complete');
    assert.equal(updateText(newest.events[0]!), 'generated prompt 199');
    const older = await client.getSessionTranscriptPage(sessionId, { beforeRecordId: seen[600]!, limit: 6 });
    assert.equal(updateText(older.events[0]!), 'generated prompt 99');
    assert.equal(older.targetRecordId, seen[600]);

    const err = await client.getSessionTranscriptPage(sessionId, { limit: 501 }).catch((e: unknown) => e);
    assert.ok(err instanceof DaemonHttpError);
    assert.equal(err.status, 400);
    assert.equal((err.body as { code: string }).code, 'invalid_transcript_limit');
  });

  test('exportSession hands back each format with its mime type and the daemon-chosen file name', async () => {
    const sessionId = await closedSession('Export me', 'Exported answer.');
    for (const [format, mime] of [
      ['html', 'text/html'],
      ['md', 'text/markdown'],
      ['json', 'application/json'],
      ['jsonl', 'application/jsonl'],
    ] as const) {
      const exported = await client.exportSession(sessionId, { format });
      assert.equal(exported.format, format);
      assert.ok(exported.mimeType.startsWith(mime), exported.mimeType);
      assert.match(exported.filename, new RegExp(`^berth-export-${sessionId.slice(0, 8)}-[0-9TZ-]+\\.${format}$`));
      assert.ok(exported.content.includes('Exported answer.'), format);
    }
  });
});
