import { randomUUID } from 'node:crypto';
import type { Db } from '../../src/store/db.js';
import { SqlitePromptRepository } from '../../src/store/repos/prompts.js';
import type { SessionRow } from '../../src/sessions/records.js';
import { SqliteSessionRepository } from '../../src/store/repos/sessions.js';
import { SqliteTranscriptRepository } from '../../src/store/repos/transcript.js';
import type { NewTranscriptRecord } from '../../src/transcript/records.js';
import type { TestDaemon } from './daemon.js';
import { EventReader, submit, type WireEvent } from './session-client.js';
import { sqliteDb } from './daemon.js';

/**
 * Helpers for history tests: run a whole turn over real HTTP, and write long
 * transcripts straight through the repositories (a thousand turns through the
 * model would only make the tests slow, not truer).
 */

/** Submits a prompt and reads the session's stream until that prompt's terminal event. */
export async function runTurn(
  d: TestDaemon,
  sessionId: string,
  prompt: string,
  clientId?: string,
): Promise<{ promptId: string; terminal: WireEvent; events: WireEvent[] }> {
  const headers: Record<string, string> = clientId ? { 'x-qwen-client-id': clientId } : {};
  const accepted = await submit(d, sessionId, prompt, {}, headers);
  if (accepted.status !== 202) throw new Error(`prompt refused: ${accepted.status} ${JSON.stringify(accepted.body)}`);
  const reader = await EventReader.open(d, sessionId, { lastEventId: accepted.body.lastEventId });
  try {
    const terminal = await reader.terminal(accepted.body.promptId);
    return { promptId: accepted.body.promptId, terminal, events: [...reader.seen] };
  } finally {
    reader.close();
  }
}

/** The records of one generated turn: prompt, thought, answer with usage, a tool call and result, the end. */
export function generatedTurn(sessionId: string, n: number, at: number): NewTranscriptRecord[] {
  const promptId = randomUUID();
  const rec = (kind: string, data: Record<string, unknown>, dt: number): NewTranscriptRecord => ({
    sessionId,
    recordId: randomUUID(),
    kind,
    promptId,
    at: at + dt,
    data,
  });
  const callId = `gen_call_${n}`;
  return [
    rec('user_prompt', { content: [{ type: 'text', text: `generated prompt ${n}` }] }, 0),
    rec('agent_thought', { text: `thinking about ${n}` }, 1),
    rec('agent_message', { text: `generated answer ${n}`, usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 } }, 2),
    rec('tool_call', { toolCallId: callId, name: 'workspace_read', title: `Read file-${n}.txt`, kind: 'read', args: { path: `file-${n}.txt` }, locations: [] }, 3),
    rec('tool_result', { toolCallId: callId, status: 'completed', content: [{ type: 'content', content: { type: 'text', text: `content ${n}` } }], rawOutput: { text: `content ${n}` } }, 4),
    rec('turn_end', { stopReason: 'end_turn' }, 5),
  ];
}

/** A plain thread session created at `createdAt` and closed by its client a millisecond later. */
export function closedSessionRow(id: string, workspaceId: string, createdAt: number): SessionRow {
  return {
    id,
    workspaceId,
    scope: 'thread',
    createdAt,
    updatedAt: createdAt,
    displayName: null,
    titleSource: null,
    prs: [],
    modelId: null,
    approvalMode: 'default',
    sourceType: null,
    sourceId: null,
    worktree: null,
    branch: null,
    currentCwd: null,
    closedAt: createdAt + 1,
    closeReason: 'client_close',
  };
}

/**
 * Stores a closed session with `turns` generated turns (6 records each) in the
 * daemon's own database, as if an earlier run had recorded it. Returns its id.
 */
export async function storeGeneratedSession(
  d: TestDaemon,
  turns: number,
  options: { sessionId?: string; workspaceId?: string; startAt?: number } = {},
): Promise<string> {
  const db: Db = sqliteDb(d.daemon);
  const sessionId = options.sessionId ?? randomUUID();
  const startAt = options.startAt ?? Date.now() - 1_000_000;
  const workspaceId = options.workspaceId ?? d.daemon.core.workspaces.primary().id;
  await new SqliteSessionRepository(db).insert(closedSessionRow(sessionId, workspaceId, startAt));
  const transcript = new SqliteTranscriptRepository(db);
  const prompts = new SqlitePromptRepository(db);
  for (let n = 0; n < turns; n++) {
    const records = generatedTurn(sessionId, n, startAt + n * 10);
    await transcript.append(records);
    const promptId = records[0]!.promptId!;
    await prompts.admit({ id: promptId, sessionId, content: records[0]!.data.content as unknown[], originatorClientId: null, queuedAt: startAt + n * 10 });
    await prompts.started(promptId, startAt + n * 10);
    await prompts.settle(promptId, startAt + n * 10 + 5, 'completed', 'end_turn', null);
  }
  return sessionId;
}

/** The record id a transcript page event names (spec §10.1). */
export const recordIdOf = (e: { data: any; _meta?: any }): string =>
  e.data?._meta?.['berth.session.recordId'] ?? e._meta?.['berth.session.recordId'];
