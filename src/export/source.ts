/**
 * What an export reads: a stored session's head and its transcript records.
 * Declared here, not imported from transcript/, because the transcript
 * service renders exports (transcript → export); its records fit these shapes.
 */

export interface ExportSession {
  readonly id: string;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly displayName: string | null;
  readonly modelId: string | null;
  readonly approvalMode: string;
}

export interface ExportRecord {
  readonly recordId: string;
  readonly kind: string;
  readonly promptId: string | null;
  readonly at: number;
  readonly data: Record<string, unknown>;
  /** Set when the stored payload could not be parsed (shown as such, never silently dropped). */
  readonly unreadable?: true;
}
