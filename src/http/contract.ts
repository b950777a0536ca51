import type { Ajv, ValidateFunction } from 'ajv';
import { BerthError, type ErrorCode } from '../protocol/errors/index.js';
import { schemaErrorField } from '../protocol/errors/schema-field.js';
import { contractAjv, OPENAPI } from './contract-schemas.js';
import * as REQUEST_VALIDATORS from './request-validators.gen.js';

export { OPENAPI, REQUEST_BODIES } from './contract-schemas.js';

let anyBody: Ajv | undefined;

/**
 * The contract's validator for `name`: a request body's comes compiled
 * (request-validators.gen.ts), so no request and no start-up compiles one;
 * any other schema (tests check responses) is compiled by an Ajv built on
 * first use.
 */
export function validatorFor(name: string): ValidateFunction<any> {
  if (Object.hasOwn(REQUEST_VALIDATORS, name)) return (REQUEST_VALIDATORS as unknown as Record<string, ValidateFunction>)[name]!;
  const fn = (anyBody ??= contractAjv()).getSchema(name);
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
