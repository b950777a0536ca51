import type { NewTranscriptRecord, TranscriptRepository } from '../transcript/records.js';
import type { Receipt } from '../tools/receipt-journal.js';
import { newRecordId } from './ids.js';
import { outcomeUpdate } from './tool-events.js';

/** How recovery asks what became of one call: the receipt store, read only. */
export interface ReceiptLookup {
  find(namespace: string, callId: string): Promise<Pick<Receipt, 'status' | 'outcome'> | undefined>;
  startedSince(namespace: string, time: number): Promise<Pick<Receipt, 'callId' | 'toolName' | 'status' | 'outcome'>[]>;
}

/** The receipt namespace of a session's calls (src/tools/service.ts). */
const namespaceOf = (sessionId: string) => `session:${sessionId}`;

/**
 * The `tool_result` records that settle every call a stopped turn left
 * without one, so a transcript never shows a call as still pending after a
 * restart (issue 16, fault test). What each says comes from the call's
 * receipt, written before the effect:
 *
 * - `completed`: the outcome was stored but its record was not; it is written now.
 * - `executing`: the call was running when the daemon stopped and may have taken
 *   effect — failed with `uncertain_effect`, the answer the same call id gets if
 *   it is ever tried again (docs/architecture.md, Receipt).
 * - none: the call never reached its effect — failed with `daemon_lost`.
 *
 * The call's own `tool_call` record is stored after the I/O of its event, while its receipt
 * is written before the effect, so a kill can fall between the two: a receipt of the turn
 * with no record gets both now, the call named by its tool (its arguments are not kept).
 */
export async function settlementsOf(
  transcript: TranscriptRepository,
  receipts: ReceiptLookup | undefined,
  sessionId: string,
  prompt: { readonly id: string; readonly startedAt: number },
  now: number,
): Promise<NewTranscriptRecord[]> {
  const promptId = prompt.id;
  const last = await transcript.lastSeq(sessionId);
  const ofTurn = async (kind: string) =>
    (await transcript.ofKind(sessionId, kind, last)).filter((r) => r.promptId === promptId && !r.unreadable);
  const settled = new Set((await ofTurn('tool_result')).map((r) => String(r.data.toolCallId)));
  const recorded = new Set<string>();
  const out: NewTranscriptRecord[] = [];
  for (const call of await ofTurn('tool_call')) {
    const toolCallId = String(call.data.toolCallId ?? '');
    recorded.add(toolCallId);
    if (toolCallId === '' || settled.has(toolCallId)) continue;
    settled.add(toolCallId);
    out.push(resultOf(toolCallId, await receipts?.find(namespaceOf(sessionId), toolCallId)));
  }
  for (const receipt of (await receipts?.startedSince(namespaceOf(sessionId), prompt.startedAt)) ?? []) {
    const toolCallId = receipt.callId;
    if (recorded.has(toolCallId) || settled.has(toolCallId)) continue;
    const data = { toolCallId, name: receipt.toolName, title: receipt.toolName, args: {}, locations: [] };
    out.push({ sessionId, recordId: newRecordId(), kind: 'tool_call', promptId, at: now, data }, resultOf(toolCallId, receipt));
  }
  return out;

  function resultOf(toolCallId: string, receipt: Pick<Receipt, 'status' | 'outcome'> | undefined): NewTranscriptRecord {
    const update =
      receipt?.status === 'completed' && receipt.outcome
        ? outcomeUpdate(receipt.outcome)
        : outcomeUpdate({ ok: false, error: receipt ? UNCERTAIN : NOT_RUN });
    return {
      sessionId,
      recordId: newRecordId(),
      kind: 'tool_result',
      promptId,
      at: now,
      data: { toolCallId, status: update.status, content: update.content ?? [], rawOutput: update.rawOutput ?? null },
    };
  }
}

const UNCERTAIN = {
  code: 'uncertain_effect',
  message: 'The daemon stopped while this call ran; it may have taken effect, and it is not run again',
  retryable: false,
};

const NOT_RUN = {
  code: 'daemon_lost',
  message: 'The daemon stopped before this call took effect; it was not run',
  retryable: false,
};
