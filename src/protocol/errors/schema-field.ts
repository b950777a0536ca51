import type { ErrorObject } from 'ajv';

/**
 * Where a JSON Schema (ajv) violation points, as a dotted field name
 * (`/pr/url` → `pr.url`; a missing or extra property names that property).
 * Shared by the client API's body validation and the tool executor's
 * argument validation, so both report fields the same way.
 */
export function schemaErrorField(e: ErrorObject): string {
  const base = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
  if (e.keyword === 'additionalProperties') {
    const extra = (e.params as { additionalProperty?: string }).additionalProperty;
    return base ? `${base}.${extra}` : String(extra);
  }
  if (e.keyword === 'required') {
    const missing = (e.params as { missingProperty?: string }).missingProperty;
    return base ? `${base}.${missing}` : String(missing);
  }
  return base;
}
