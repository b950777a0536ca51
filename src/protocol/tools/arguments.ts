import { Ajv, type ValidateFunction } from 'ajv';
import { BerthError, type ErrorCode } from '../errors/index.js';
import { schemaErrorField } from '../errors/schema-field.js';
import type { JsonSchema } from './types.js';

/**
 * JSON Schema validation for tool arguments and protocol payloads (issue 2:
 * the executor validates arguments against the tool's inputSchema with ajv).
 * `addUsedSchema: false` keeps one application's `$id` from colliding with
 * another's; formats are not enforced (no format vocabulary is bundled), so a
 * `format` keyword is documentation only.
 */
const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: false, addUsedSchema: false });

/** Compiled validators per schema object: a tool's schema is compiled once, not per call. */
const compiled = new WeakMap<object, ValidateFunction>();

/**
 * Compiles a schema, refusing one that is not valid JSON Schema with
 * `invalid_request` (an application publishing a broken tool is refused whole).
 */
export function compileSchema(schema: JsonSchema, what = 'input schema'): ValidateFunction {
  const known = compiled.get(schema);
  if (known) return known;
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema);
  } catch (err) {
    throw new BerthError('invalid_request', `Invalid ${what}: ${err instanceof Error ? err.message : String(err)}`);
  }
  compiled.set(schema, validate);
  return validate;
}

/**
 * Checks a value against a schema; on the first violation throws `code` with
 * ajv's message and the field it points at (`details.field`).
 */
export function assertMatches(schema: JsonSchema, value: unknown, code: ErrorCode, what: string): void {
  const validate = compileSchema(schema);
  if (validate(value)) return;
  const violation = validate.errors![0]!;
  const field = schemaErrorField(violation);
  const where = field ? `\`${field}\`` : what;
  throw new BerthError(code, `${where} ${violation.message ?? 'is invalid'}`, field ? { field } : {});
}

/**
 * Checks a successful call's `result` against the tool's outputSchema, when it
 * has one (seed 003: results are validated against the published schemas).
 * A mismatch is `tool_failed`: the call ran — its effect, if any, happened —
 * but what came back is not what the tool promised, so nothing should be built
 * on it. `details.outputSchema` tells it apart from other failures.
 */
export function validateResult(def: { readonly name: string; readonly outputSchema?: JsonSchema }, result: unknown): void {
  if (!def.outputSchema) return;
  const validate = compileSchema(def.outputSchema, 'output schema');
  if (validate(result)) return;
  const violation = validate.errors![0]!;
  const field = schemaErrorField(violation);
  const where = field ? `\`${field}\`` : 'the result';
  throw new BerthError(
    'tool_failed',
    `${def.name} ran, but its result does not match its outputSchema: ${where} ${violation.message ?? 'is invalid'}`,
    { tool: def.name, outputSchema: true, ...(field ? { field } : {}) },
  );
}

/** Validates tool arguments against the tool's inputSchema (`invalid_arguments`). */
export function validateArguments(
  def: { readonly name: string; readonly inputSchema: JsonSchema },
  args: unknown,
): asserts args is Record<string, unknown> {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    // Seed 003 (Calls and Results): "arguments must be a JSON object".
    throw new BerthError('invalid_arguments', `Arguments of ${def.name} must be a JSON object`);
  }
  assertMatches(def.inputSchema, args, 'invalid_arguments', `the arguments of ${def.name}`);
}
