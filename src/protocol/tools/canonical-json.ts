import { sha256Hex } from './sha256.js';

/**
 * Canonical JSON: object keys sorted by code unit, no whitespace, `undefined`
 * members dropped (as JSON.stringify drops them). Two equal JSON values always
 * give the same text, so hashes over it are stable (definition and catalog
 * revisions, receipt argument digests).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    return JSON.stringify(value) ?? 'null';
  }
  if (Array.isArray(value)) {
    return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  }
  const members: string[] = [];
  for (const key of Object.keys(value).sort()) {
    const member = (value as Record<string, unknown>)[key];
    if (member === undefined || typeof member === 'function') continue;
    members.push(`${JSON.stringify(key)}:${canonicalJson(member)}`);
  }
  return `{${members.join(',')}}`;
}

/** `sha256:` + lowercase hex SHA-256 of the value's canonical JSON (docs/tool-protocol.md revision format). */
export function sha256Revision(value: unknown): string {
  return `sha256:${sha256Hex(canonicalJson(value))}`;
}
