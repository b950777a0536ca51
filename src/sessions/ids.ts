import { randomUUID } from 'node:crypto';

/** RFC 4122 UUIDs of versions 1-5 only (docs/client-api.md §5.1: v7/v8 are refused). */
export const SESSION_ID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-5][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$/;

export function isSessionId(value: string): boolean {
  return SESSION_ID_PATTERN.test(value);
}

export const newSessionId = (): string => randomUUID();
export const newClientId = (): string => `client_${randomUUID()}`;
export const newPromptId = (): string => randomUUID();
export const newRequestId = (): string => randomUUID();
export const newRecordId = (): string => randomUUID();
