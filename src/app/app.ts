import { DEFAULT_FRAME_BYTES, MAX_FRAME_ID_CHARS } from '../protocol/limits.js';
import { BerthError } from '../protocol/errors/index.js';
import type { EvidenceRequest } from '../protocol/toolproto/payloads.js';
import { runBatch, parseBatch } from '../protocol/tools/batch.js';
import { answerCatalogQuery, type CatalogPayload } from '../protocol/tools/catalog.js';
import { parseCatalogQuery } from '../protocol/tools/catalog-query.js';
import { lowerGuard, type ToolGuard } from '../protocol/tools/guard.js';
import { POLICIES, type Policy, type ToolAvailability, type ToolOutcome } from '../protocol/tools/types.js';
import { envelope, HOST_FRAME_TYPES, readEnvelope, refusalFrame, type Envelope } from '../protocol/toolproto/envelope.js';
import type { WireBatchItem, WireError, WireSuccess } from '../protocol/toolproto/outcomes.js';
import { assertPayload, BATCH_AFTER, CALL_PAYLOAD, ERROR_PAYLOAD } from '../protocol/toolproto/payloads.js';
import { runCall, wireError, type EvidenceHooks } from './calls.js';
import { decodePayload, encodePayload } from './codec.js';
import { AppTools, type AnyAppToolSpec } from './tools.js';
import type { AppSocket } from './transport.js';

export interface AppOptions {
  /**
   * The application's own guard (docs/tool-protocol.md "the app's local guard"); default
   * `critical`. The host's `maxToolPolicy` can lower it, never raise it.
   * Tools above the effective guard are left out of the catalog and refused.
   */
  readonly maxPolicy?: Policy;
  readonly evidence?: EvidenceHooks;
  /** Notices the host sends that answer nothing (a tool left out for its policy, a refused frame). */
  readonly onNotice?: (notice: WireError) => void;
  /** Stamps `sentAt` and `evaluatedAtUtc`; defaults to the system clock. */
  readonly now?: () => number;
}

export interface CloseInfo {
  readonly code: number;
  readonly reason: string;
}

/**
 * An application connected to a Berth daemon (`berth/app`): the
 * application side of the tool protocol (docs/tool-protocol.md). The host asks, this answers — catalogs with
 * the daemon's own catalog code (so revisions match exactly), calls and
 * batches validated against the published schemas, with large payloads
 * wrapped both ways. When tools or their availability change, it tells the
 * host with an unsolicited `tool.catalog` (an index, or `unchanged` with the
 * availability `changes`), so the host can refresh.
 */
export class BerthApp {
  readonly closed: Promise<CloseInfo>;
  private readonly tools = new AppTools();
  private readonly localGuard: ToolGuard;
  private hostMaxPolicy: Policy | undefined;
  /** The revisions of the last catalog the host was given; undefined until it first asked. */
  private told: { revision?: string; availabilityRevision?: string } = {};
  private announcing = false;
  private seq = 0;
  private readonly now: () => number;

  constructor(
    private readonly socket: AppSocket,
    private readonly options: AppOptions = {},
  ) {
    this.localGuard = { maxPolicy: options.maxPolicy ?? 'critical' };
    this.now = options.now ?? (() => Date.now());
    this.closed = new Promise((resolve) => socket.onClose((code, reason) => resolve({ code, reason })));
    socket.onMessage((text, isBinary) => void this.receive(text, isBinary));
  }

  /** Adds a tool; the host hears of it at once. Throws a TypeError for an invalid spec (nothing is added). */
  registerTool(spec: AnyAppToolSpec): void {
    this.tools.register(spec);
    this.changed();
  }

  unregisterTool(id: string): void {
    if (this.tools.unregister(id)) this.changed();
  }

  /** Reports a tool's runtime state (`{available: false, reason, …}`), or `null` to return to its own probe. */
  setAvailability(id: string, state: ToolAvailability | null): void {
    this.tools.setAvailability(id, state);
    this.changed();
  }

  /** Re-evaluates availability probes and tells the host if anything changed (call after your app's state moves). */
  announce(): void {
    if (this.told.revision === undefined) return; // the host's first query will see everything
    const answer = this.catalog({ detail: 'index', ifRevision: this.told.revision, ifAvailabilityRevision: this.told.availabilityRevision });
    if (answer.unchanged === true && answer.availabilityRevision === undefined) return;
    void this.send('tool.catalog', this.nextId('catalog'), answer, {});
  }

  close(code = 1000, reason = 'application closing'): Promise<CloseInfo> {
    this.socket.close(code, reason);
    return this.closed;
  }

  private changed(): void {
    if (this.announcing) return;
    this.announcing = true;
    // Several registrations in one tick make one announcement.
    queueMicrotask(() => {
      this.announcing = false;
      this.announce();
    });
  }

  private get guard(): ToolGuard {
    return lowerGuard(this.localGuard, this.hostMaxPolicy);
  }

  private catalog(query: Parameters<typeof answerCatalogQuery>[2]): CatalogPayload {
    const answer = answerCatalogQuery(this.tools.list(), this.guard, query, this.now());
    if (typeof answer.availabilityRevision === 'string') {
      this.told = { revision: answer.revision, availabilityRevision: answer.availabilityRevision };
    }
    return answer;
  }

  private async receive(text: string, isBinary: boolean): Promise<void> {
    let frame: Envelope | undefined;
    try {
      if (isBinary) throw new BerthError('protocol_error', 'Binary frames are not part of the tool protocol');
      frame = readEnvelope(text, [...HOST_FRAME_TYPES, 'tool.error']);
      const payload = await decodePayload(frame.payload ?? {}).catch((err: BerthError) => {
        throw new BerthError(err.code, err.message, { ...err.details, replyTo: frame!.id });
      });
      await this.answer(frame, payload);
    } catch (err) {
      const be = err instanceof BerthError ? err : new BerthError('internal_error', String(err));
      // A request gets its refusal as the answer; a frame we could not read gets one naming it if possible.
      const refusal = frame && !('replyTo' in be.details) ? new BerthError(be.code, be.message, { ...be.details, replyTo: frame.id }) : be;
      this.socket.send(JSON.stringify(refusalFrame(refusal, this.nextId('refusal'), this.now())));
    }
  }

  private async answer(frame: Envelope, payload: unknown): Promise<void> {
    const context = { replyTo: frame.id, ...(frame.sessionId ? { sessionId: frame.sessionId } : {}) };
    const id = responseId(frame.id, () => this.nextId('response'));
    switch (frame.type) {
      case 'tool.error': {
        // The host's notice or refusal; it answers nothing of ours that waits.
        assertPayload(ERROR_PAYLOAD, payload, 'tool.error');
        this.options.onNotice?.(payload as WireError);
        return;
      }
      case 'tool.query': {
        const query = parseCatalogQuery(payload);
        const hint = (payload as { maxToolPolicy?: unknown } | undefined)?.maxToolPolicy;
        if (POLICIES.includes(hint as Policy)) this.hostMaxPolicy = hint as Policy;
        return this.send('tool.catalog', id, this.catalog(query), context);
      }
      case 'tool.call': {
        assertPayload(CALL_PAYLOAD, payload, 'tool.call');
        const call = payload as { toolId: string; arguments: unknown; after?: EvidenceRequest };
        const reply = await runCall(this.tools, this.guard, { ...call, callId: frame.id, ...sessionOf(frame) }, this.options.evidence ?? {});
        if ('code' in reply) return this.send('tool.error', id, reply, context);
        return this.send('tool.result', id, { toolId: call.toolId, ...reply }, context);
      }
      case 'tool.batch': {
        const request = parseBatch(payload);
        assertPayload(BATCH_AFTER, payload, 'tool.batch');
        const report = await runBatch(request, async (c, index): Promise<ToolOutcome> => {
          const after = (c as { after?: EvidenceRequest }).after;
          const callId = c.callId ?? `${frame.id}#${index}`;
          const reply = await runCall(
            this.tools,
            this.guard,
            { toolId: c.toolId, arguments: c.arguments ?? {}, callId, ...(after ? { after } : {}), ...sessionOf(frame) },
            this.options.evidence ?? {},
          );
          // The wire reply rides in `value` until it is written back out below.
          return 'code' in reply ? { ok: false, error: reply } : { ok: true, result: { value: reply } };
        });
        const results = report.results.map(
          (r): WireBatchItem => ({
            index: r.index,
            ...(r.callId !== undefined ? { callId: r.callId } : {}),
            toolId: r.toolId,
            ...(r.outcome.ok ? (r.outcome.result.value as WireSuccess) : { success: false as const, error: r.outcome.error }),
          }),
        );
        return this.send('tool.batch.result', id, { ...report, results }, context);
      }
    }
  }

  /**
   * Sends one frame, wrapping a large payload (docs/tool-protocol.md). A frame that would
   * still pass the daemon's frame limit is answered with `frame_too_large`
   * instead, so the socket survives.
   */
  private async send(type: string, id: string, payload: unknown, fields: { replyTo?: string; sessionId?: string }): Promise<void> {
    let text = JSON.stringify(envelope(type, id, await encodePayload(payload), { ...fields, now: this.now() }));
    if (text.length * 3 > DEFAULT_FRAME_BYTES && new TextEncoder().encode(text).byteLength > DEFAULT_FRAME_BYTES) {
      const tooLarge = wireError(new BerthError('frame_too_large', `The ${type} is larger than ${DEFAULT_FRAME_BYTES} bytes even compressed`));
      text = JSON.stringify(envelope('tool.error', id, tooLarge, { ...fields, now: this.now() }));
    }
    this.socket.send(text);
  }

  private nextId(kind: string): string {
    this.seq += 1;
    return `app_${kind}_${this.seq}`;
  }
}

/** The tool protocol's example names an answer `<request id>.response`; a long request id gets a fresh one instead. */
function responseId(requestId: string, fresh: () => string): string {
  const id = `${requestId}.response`;
  return id.length <= MAX_FRAME_ID_CHARS ? id : fresh();
}

function sessionOf(frame: Envelope): { sessionId?: string } {
  return frame.sessionId !== undefined ? { sessionId: frame.sessionId } : {};
}
