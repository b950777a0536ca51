import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import { BerthError, type ErrorCode } from '../protocol/errors/index.js';
import { schemaErrorField } from '../protocol/errors/schema-field.js';
import { packageFile } from '../package-files.js';

/**
 * The seed OpenAPI (`contract/openapi.json`) is the single source of the client
 * API's shapes: types come from it (`openapi.gen.ts`), and request bodies and
 * responses are validated against it here.
 */
export const OPENAPI: {
  paths: Record<string, Record<string, { operationId: string; 'x-qwen-capability'?: string }>>;
  components: { schemas: Record<string, object> };
} = JSON.parse(readFileSync(packageFile('contract/openapi.json'), 'utf8'));

let contractAjv: Ajv | undefined;

/** Built on the first body that needs checking, not at start-up (issue 17: the port opens before this work). */
function ajv(): Ajv {
  if (contractAjv) return contractAjv;
  // The contract's own schemas are checked against the meta-schema by a unit test (test/unit/http/request-bodies.test.ts),
  // not at every start: that check was 75 ms of the first request's time.
  contractAjv = new Ajv({ strict: false, allErrors: false, validateFormats: false, validateSchema: false });
  for (const [name, schema] of Object.entries(OPENAPI.components.schemas)) {
    contractAjv.addSchema(rewriteRefs(schema) as object, name);
  }
  return contractAjv;
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

/** The request bodies the routes check (parseBody), compiled ahead of their first request by `warmRequestValidators`. */
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
 * Compiles the request-body validators one per turn of the event loop, so a
 * request arriving meanwhile waits for one compile at most (issue 17: the
 * first `POST /session` does not pay for work start-up could do after listening).
 */
export async function warmRequestValidators(): Promise<void> {
  for (const name of REQUEST_BODIES) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    validatorFor(name);
  }
}

export function validatorFor(name: string): ValidateFunction<any> {
  const fn = ajv().getSchema(name);
  if (!fn) throw new Error(`no schema ${name} in contract/openapi.json`);
  return fn;
}

/**
 * Validates a request body against a contract schema; refuses the whole body on the first
 * violation. `fieldCodes` maps a top-level field to the specific code the spec names for it
 * (e.g. `sessionScope` → `invalid_session_scope`); `*` names the code for any other
 * violation, which is otherwise `invalid_request`.
 */
export function parseBody<T>(
  schema: string,
  body: unknown,
  fieldCodes: Partial<Record<string, ErrorCode>> = {},
): T {
  const value = body === undefined || body === null ? {} : body;
  const validate = validatorFor(schema);
  if (validate(value)) return value as T;
  const err = validate.errors![0]!;
  const field = schemaErrorField(err);
  const top = field.split('.')[0] ?? '';
  // Own keys only: a body field named `__proto__` or `constructor` must not find Object.prototype.
  const code = ownCode(fieldCodes, field) ?? ownCode(fieldCodes, top) ?? ownCode(fieldCodes, '*') ?? 'invalid_request';
  const where = field ? `\`${field}\`` : 'the body';
  const message = err.keyword === 'additionalProperties' ? unknownField(schema, err.instancePath, field) : `${where} ${err.message ?? 'is invalid'}`;
  throw new BerthError(code, message, field ? { field } : {});
}

/**
 * An extra property said as a person would (issue 11): "unknown field `bogus`",
 * with the fields a top-level body does take. Bodies stay strict — the
 * contract says `additionalProperties: false`, and a misspelt `sessionScope`
 * silently ignored would attach to a shared session instead of a new one.
 */
function unknownField(schema: string, instancePath: string, field: string): string {
  const known = instancePath === '' ? Object.keys((OPENAPI.components.schemas[schema] as { properties?: object }).properties ?? {}) : [];
  return `unknown field \`${field}\`` + (known.length > 0 ? `; this body takes ${known.map((k) => `\`${k}\``).join(', ')}` : '');
}

function ownCode(codes: Partial<Record<string, ErrorCode>>, key: string): ErrorCode | undefined {
  return Object.hasOwn(codes, key) ? codes[key] : undefined;
}
