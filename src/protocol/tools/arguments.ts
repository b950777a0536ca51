import { Ajv, type ValidateFunction } from 'ajv';
import { BerthError, type ErrorCode } from '../errors/index.js';
import { schemaErrorField } from '../errors/schema-field.js';
import { ajvLinearRegExp } from './safe-regexp.js';
import { checkSchemaBounds } from './schema-bounds.js';
import type { JsonSchema } from './types.js';

/**
 * JSON Schema validation for tool arguments and protocol payloads (the
 * executor validates arguments against the tool's inputSchema with ajv).
 * Formats are not enforced (no format vocabulary is bundled), so a `format`
 * keyword is documentation only. Every `pattern` runs on the linear-time
 * engine (safe-regexp.ts), never on a backtracking one.
 */
const OPTIONS = {
  strict: false,
  allErrors: false,
  validateFormats: false,
  addUsedSchema: false,
  code: { regExp: ajvLinearRegExp, optimize: false },
} as const;

/**
 * The daemon's own schemas (protocol payloads, built-in tools): a fixed set,
 * so one shared instance may keep them all. It also checks application schemas
 * against the meta-schema, which compiles nothing of theirs.
 */
let own: Ajv | undefined;
/** Built on first use: a daemon whose config lists no agents compiles nothing before its port opens. */
const ownAjv = (): Ajv => (own ??= new Ajv(OPTIONS));

/** Compiled validators per schema object, held only as long as the schema itself is. */
const compiled = new WeakMap<object, ValidateFunction>();

/**
 * Compiles one of the daemon's own schemas, refusing one that is not valid JSON
 * Schema with `invalid_request`.
 */
export function compileSchema<T = unknown>(schema: JsonSchema, what = 'input schema'): ValidateFunction<T> {
  const known = compiled.get(schema);
  if (known) return known as ValidateFunction<T>;
  let validate: ValidateFunction;
  try {
    validate = ownAjv().compile(schema);
  } catch (err) {
    throw new BerthError('invalid_request', `Invalid ${what}: ${err instanceof Error ? err.message : String(err)}`);
  }
  compiled.set(schema, validate);
  return validate as ValidateFunction<T>;
}

/**
 * The cheap check an application's tool schema gets when it is announced:
 * its size, depth and patterns are bounded and it is valid JSON
 * Schema. Nothing is compiled; a 1,000-tool catalog costs a walk per tool.
 */
export function checkToolSchema(schema: JsonSchema, what: string): void {
  if (checked.has(schema)) return;
  checkSchemaBounds(schema, what);
  const ajv = ownAjv();
  if (!ajv.validateSchema(schema)) {
    const first = ajv.errors?.[0];
    throw new BerthError('invalid_request', `${what}: invalid input schema: ${first ? `${first.instancePath} ${first.message}` : 'not JSON Schema'}`);
  }
  checked.add(schema);
}

/** Schemas that passed `checkToolSchema`, so the registry's own check of a pre-checked catalog costs nothing. */
const checked = new WeakSet<object>();

/**
 * A tool's validator, compiled on the tool's first call (not when it is
 * announced) by an Ajv instance of its own, so nothing of it outlives the
 * schema object: Ajv keeps every schema and compiled function an instance ever
 * compiled, and a shared instance would hold every announced catalog forever.
 */
export function toolValidator(schema: JsonSchema, what = 'input schema'): ValidateFunction {
  const known = compiled.get(schema);
  if (known) return known;
  let validate: ValidateFunction;
  try {
    validate = new Ajv({ ...OPTIONS, meta: false, validateSchema: false }).compile(schema);
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
 * has one (docs/tool-protocol.md: results are checked against the published schemas).
 * A mismatch is `tool_failed`: the call ran — its effect, if any, happened —
 * but what came back is not what the tool promised, so nothing should be built
 * on it. `details.outputSchema` tells it apart from other failures.
 */
export function validateResult(def: { readonly name: string; readonly outputSchema?: JsonSchema }, result: unknown): void {
  if (!def.outputSchema) return;
  const validate = toolValidator(def.outputSchema, 'output schema');
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
    // docs/tool-protocol.md (Calls and Results): "arguments must be a JSON object".
    throw new BerthError('invalid_arguments', `Arguments of ${def.name} must be a JSON object`);
  }
  const validate = toolValidator(def.inputSchema);
  if (validate(args)) return;
  const violation = validate.errors![0]!;
  const field = schemaErrorField(violation);
  const where = field ? `\`${field}\`` : `the arguments of ${def.name}`;
  throw new BerthError('invalid_arguments', `${where} ${violation.message ?? 'is invalid'}`, field ? { field } : {});
}
