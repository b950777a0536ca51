import { MAX_BATCH_CALLS, MAX_CATALOG_TOOLS, MAX_EVIDENCE_DELAY_MS, MAX_TOOL_NAME_CHARS } from '../limits.js';
import { BerthError } from '../errors/index.js';
import { assertMatches } from '../tools/arguments.js';
import { CATALOG_SCHEMA } from '../tools/catalog.js';

/**
 * The payload shapes of the tool protocol's messages, as JSON Schema, checked after a
 * payload is decoded (docs/tool-protocol.md: "decode the wrapper before interpreting").
 * Each payload is accepted whole or refused whole with `protocol_error`.
 * Unknown members are tolerated (newer peers add hints); wrong types are not.
 */

const TEXT = { type: 'string', maxLength: 100_000 };
const TOOL_ID = { type: 'string', minLength: 1, maxLength: MAX_TOOL_NAME_CHARS };
const POLICY = { enum: ['read', 'write', 'critical'] };
const COUNT = { type: 'integer', minimum: 0 };

const RUNTIME = {
  type: 'object',
  required: ['available'],
  properties: {
    available: { type: 'boolean' },
    code: TEXT,
    reason: TEXT,
    requiredState: TEXT,
    remediation: TEXT,
    retryable: { type: 'boolean' },
  },
};

const CATALOG_ENTRY = {
  type: 'object',
  required: ['id', 'definitionRevision'],
  properties: {
    id: TOOL_ID,
    name: TEXT,
    description: TEXT,
    category: TEXT,
    policy: POLICY,
    definitionRevision: { type: 'string', minLength: 1, maxLength: 200 },
    inputSchema: { type: 'object' },
    outputSchema: { type: 'object' },
    annotations: { type: 'object' },
    prerequisiteToolIds: { type: 'array', items: TOOL_ID, maxItems: MAX_CATALOG_TOOLS },
    // JSON is the default and normally omitted; an encoding Berth cannot honour refuses the catalog.
    argumentEncoding: { enum: ['json', 'flattened-string'] },
    runtime: RUNTIME,
    executable: { type: 'boolean' },
  },
};

export const CATALOG_PAYLOAD = {
  type: 'object',
  required: ['schema', 'revision'],
  properties: {
    schema: { const: CATALOG_SCHEMA },
    revision: { type: 'string', minLength: 1, maxLength: 200 },
    availabilityRevision: { type: 'string', minLength: 1, maxLength: 200 },
    evaluatedAtUtc: { type: 'string' },
    unchanged: { type: 'boolean' },
    detail: { enum: ['full', 'index', 'definitions'] },
    tools: { type: 'array', items: CATALOG_ENTRY, maxItems: MAX_CATALOG_TOOLS },
    count: COUNT,
    totalCount: COUNT,
    categories: { type: 'object', additionalProperties: COUNT },
    changes: { type: 'object', additionalProperties: RUNTIME, maxProperties: MAX_CATALOG_TOOLS },
  },
};

const ERROR_BODY = {
  type: 'object',
  required: ['code', 'message', 'retryable'],
  properties: {
    code: { type: 'string', minLength: 1, maxLength: 200 },
    message: TEXT,
    retryable: { type: 'boolean' },
    details: { type: 'object' },
  },
};

export const ERROR_PAYLOAD = ERROR_BODY;

const EVIDENCE = { type: 'object' };

export const RESULT_PAYLOAD = {
  type: 'object',
  required: ['toolId', 'success'],
  properties: { toolId: TOOL_ID, success: { const: true }, message: TEXT, result: {}, evidence: EVIDENCE },
};

export const BATCH_RESULT_PAYLOAD = {
  type: 'object',
  required: ['success', 'completed', 'requested', 'stoppedEarly', 'results'],
  properties: {
    success: { type: 'boolean' },
    completed: COUNT,
    requested: { type: 'integer', minimum: 1, maximum: MAX_BATCH_CALLS },
    stoppedEarly: { type: 'boolean' },
    results: {
      type: 'array',
      maxItems: MAX_BATCH_CALLS,
      items: {
        type: 'object',
        required: ['index', 'success'],
        properties: {
          index: { type: 'integer', minimum: 0, maximum: MAX_BATCH_CALLS - 1 },
          callId: { type: 'string' },
          toolId: TOOL_ID,
          success: { type: 'boolean' },
          message: TEXT,
          result: {},
          evidence: EVIDENCE,
          error: ERROR_BODY,
        },
        if: { properties: { success: { const: false } } },
        then: { required: ['error'] },
      },
    },
  },
};

/**
 * Post-call evidence a host may ask for (docs/tool-protocol.md, Calls and Results:
 * `after`): a visual tree and/or a screenshot, taken `delayMilliseconds`
 * (0–2000) after the call; the tool-specific argument objects refine them.
 */
export interface EvidenceRequest {
  readonly include: readonly ('visualTree' | 'screenshot')[];
  readonly delayMilliseconds?: number;
  readonly visualTreeArguments?: Record<string, unknown>;
  readonly screenshotArguments?: Record<string, unknown>;
}

/** docs/tool-protocol.md `after`: which evidence, and a delay of 0 through 2000 ms. */
export const AFTER = {
  type: 'object',
  required: ['include'],
  properties: {
    include: { type: 'array', items: { enum: ['visualTree', 'screenshot'] }, uniqueItems: true, maxItems: 2 },
    delayMilliseconds: { type: 'integer', minimum: 0, maximum: MAX_EVIDENCE_DELAY_MS },
    visualTreeArguments: { type: 'object' },
    screenshotArguments: { type: 'object' },
  },
};

export const CALL_PAYLOAD = {
  type: 'object',
  required: ['toolId', 'arguments'],
  properties: { toolId: TOOL_ID, arguments: {}, after: AFTER },
};

/** Per-call `after` inside a `tool.batch` (the rest of the batch shape is tools/batch.ts `parseBatch`). */
export const BATCH_AFTER = {
  type: 'object',
  properties: { calls: { type: 'array', items: { type: 'object', properties: { after: AFTER } } } },
};

/** Checks a decoded payload; a violation is `protocol_error` naming the message. */
export function assertPayload(schema: Record<string, unknown>, payload: unknown, type: string): void {
  try {
    assertMatches(schema, payload, 'protocol_error', `the ${type} payload`);
  } catch (err) {
    const be = err as BerthError;
    throw new BerthError('protocol_error', `Invalid ${type} payload: ${be.message}`, be.details);
  }
}
