/** One error code's meaning: its HTTP status, default message and retry hints (catalog.ts). */
export interface ErrorSpec {
  readonly status: number;
  readonly message: string;
  readonly errorKind?: string;
  readonly retryable?: boolean;
  readonly retryAfterSeconds?: number;
}

/** Keeps each table's literal keys (the codes) while checking every entry is an ErrorSpec. */
export const spec = <T extends Record<string, ErrorSpec>>(t: T) => t;
