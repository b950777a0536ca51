import assert from 'node:assert/strict';
import { OPENAPI } from '../../src/http/contract.js';

/**
 * What the contract tests (style.md §4) read of the seed OpenAPI: an
 * operation's listed statuses and their content, and the check that a suite
 * produced every status its operations list.
 */

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export type Operation = {
  operationId: string;
  responses: Record<string, { content?: Record<string, { schema: { $ref?: string } }> }>;
};

/** The seed OpenAPI's operation for `method` on the path `template` (e.g. `/session/{id}/load`). */
export const op = (method: Method, template: string): Operation =>
  (OPENAPI.paths[template] as unknown as Record<string, Operation>)[method.toLowerCase()]!;

/**
 * Every status (but `default`) the `covered` operations list was `seen` as
 * `METHOD template status`, or is named in `unreachable` with the reason Berth
 * cannot produce it; and none named there was seen after all.
 */
export function assertEveryStatusProduced(
  covered: ReadonlyArray<readonly [Method, string]>,
  unreachable: Readonly<Record<string, string>>,
  seen: ReadonlySet<string>,
): void {
  const missing: string[] = [];
  for (const [method, template] of covered) {
    for (const status of Object.keys(op(method, template).responses)) {
      if (status === 'default') continue;
      const key = `${method} ${template} ${status}`;
      if (!seen.has(key) && !(key in unreachable)) missing.push(key);
      if (seen.has(key)) assert.ok(!(key in unreachable), `${key} is named unreachable but was produced`);
    }
  }
  assert.deepEqual(missing, []);
}
