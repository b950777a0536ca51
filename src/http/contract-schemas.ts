import { readFileSync } from 'node:fs';
import { Ajv, type Options } from 'ajv';
import { packageFile } from '../package-files.js';

/**
 * The seed OpenAPI (`contract/openapi.json`) is the single source of the client
 * API's shapes: types come from it (`openapi.gen.ts`), the request-body
 * validators too (`request-validators.gen.ts`), and tests check responses
 * against it through `contractAjv`.
 */
export const OPENAPI: {
  paths: Record<string, Record<string, { operationId: string; 'x-qwen-capability'?: string }>>;
  components: { schemas: Record<string, object> };
} = JSON.parse(readFileSync(packageFile('contract/openapi.json'), 'utf8'));

/** The request bodies the routes check (parseBody): scripts/gen-request-validators.ts compiles these ahead, at development time. */
export const REQUEST_BODIES = [
  'CreateSessionRequest',
  'SessionMetadataRequest',
  'PermissionResponse',
  'SessionModelRequest',
  'SessionApprovalModeRequest',
  'ResumeSessionRequest',
  'RestoreSessionRequest',
  'SessionRewindRequest',
] as const;

/**
 * An Ajv holding every contract schema by name. The contract's own schemas are
 * checked against the meta-schema by a unit test (test/unit/http/request-bodies.test.ts),
 * not here: that check was 75 ms of the first request's time.
 */
export function contractAjv(options: Options = {}): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: false, validateSchema: false, ...options });
  for (const [name, schema] of Object.entries(OPENAPI.components.schemas)) {
    ajv.addSchema(rewriteRefs(schema) as object, name);
  }
  return ajv;
}

function rewriteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (node && typeof node === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      out[k] = k === '$ref' && typeof v === 'string' ? v.replace('#/components/schemas/', '') : rewriteRefs(v);
    }
    return out;
  }
  return node;
}
