/**
 * One transcript record: something a session said or did, with a stable id.
 * Kinds: `user_prompt`, `agent_message`, `agent_thought`, `tool_call`,
 * `tool_result`, `plan`, `permission_request`, `permission_outcome`,
 * `model_switch`, `metadata`, `approval_mode`, `mid_turn_message` (a message
 * typed while its turn ran, handed to the model there), `turn_end` (`interrupted: true`
 * when a restart found the turn unfinished), `module_message`.
 */
export interface TranscriptRecord {
  readonly sessionId: string;
  readonly seq: number;
  readonly recordId: string;
  readonly kind: string;
  readonly promptId: string | null;
  readonly at: number;
  readonly data: Record<string, unknown>;
  /** Set when the stored payload could not be parsed; `data` is then empty (load/transcript report `partial`). */
  readonly unreadable?: true;
}

export type NewTranscriptRecord = Omit<TranscriptRecord, 'seq' | 'unreadable'> & {
  /** The whole data as JSON when `data` is only its preview (src/transcript/bound-record.ts); stored beside the record. */
  readonly overflow?: string;
};

/** Where transcripts are kept: the transcript module's interface, which `store/` implements. */
export interface TranscriptRepository {
  /** Appends records in order; returns them with their sequence numbers. */
  append(records: readonly NewTranscriptRecord[]): Promise<TranscriptRecord[]>;
  count(sessionId: string): Promise<number>;
  /** Records with seq in [fromSeq, toSeq), ascending. */
  range(sessionId: string, fromSeq: number, toSeq: number): Promise<TranscriptRecord[]>;
  all(sessionId: string): Promise<TranscriptRecord[]>;
  seqOf(recordId: string): Promise<{ sessionId: string; seq: number } | undefined>;
  /**
   * The highest seq stored for the session, read from the table (not the append cache), so a
   * transcript page sees exactly what storage holds now.
   */
  lastSeq(sessionId: string): Promise<number>;
  /** The record id stored at one position, if any: what a frozen transcript snapshot checks. */
  recordIdAt(sessionId: string, seq: number): Promise<string | undefined>;
  /** The whole data, as JSON, of a record stored as a preview; undefined when the record was stored whole. */
  overflowOf(recordId: string): Promise<string | undefined>;
  /** Records of one kind with seq <= toSeq, ascending (e.g. the prompts of a turn index). */
  ofKind(sessionId: string, kind: string, toSeq: number): Promise<TranscriptRecord[]>;
}

/** What history reads of a stored session (the sessions module keeps the whole row). */
export interface SessionHead {
  readonly id: string;
  readonly workspaceId: string;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly displayName: string | null;
  readonly modelId: string | null;
  readonly approvalMode: string;
  readonly currentCwd: string | null;
}

/** Stored sessions as history looks them up. */
export interface SessionHeads {
  get(id: string): Promise<SessionHead | undefined>;
}
