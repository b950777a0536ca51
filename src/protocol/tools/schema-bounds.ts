import {
  MAX_SCHEMA_CHARS,
  MAX_SCHEMA_DEPTH,
  MAX_SCHEMA_NODES,
  MAX_SCHEMA_PATTERN_CHARS,
  MAX_SCHEMA_PROPERTIES,
} from '../limits.js';
import { BerthError } from '../errors/index.js';
import { linearRegExp } from './safe-regexp.js';
import type { JsonSchema } from './types.js';

/**
 * Refuses an application schema whose compile would cost more than a bounded
 * amount, before anything compiles it, and any `pattern` the
 * linear-time engine cannot run (#3). One iterative walk whose cost is the
 * schema's size, stopped at the first bound passed.
 */
export function checkSchemaBounds(schema: JsonSchema, what: string): void {
  const refuse = (message: string, details: Record<string, unknown>) =>
    new BerthError('schema_too_complex', `${what}: ${message}`, details);
  let nodes = 0;
  let chars = 0;
  const stack: Array<{ node: unknown; depth: number; key: string | undefined }> = [{ node: schema, depth: 1, key: undefined }];
  while (stack.length > 0) {
    const { node, depth, key } = stack.pop()!;
    if (typeof node === 'string') {
      chars += node.length;
      if (key === 'pattern') checkPattern(node, what);
      continue;
    }
    if (node === null || typeof node !== 'object') continue;
    if (++nodes > MAX_SCHEMA_NODES) throw refuse(`more than ${MAX_SCHEMA_NODES} schema nodes`, { limit: MAX_SCHEMA_NODES });
    if (depth > MAX_SCHEMA_DEPTH) throw refuse(`nested deeper than ${MAX_SCHEMA_DEPTH}`, { limit: MAX_SCHEMA_DEPTH });
    const entries = Array.isArray(node) ? node.map((v) => [undefined, v] as const) : Object.entries(node);
    if ((key === 'properties' || key === 'patternProperties') && entries.length > MAX_SCHEMA_PROPERTIES) {
      throw refuse(`more than ${MAX_SCHEMA_PROPERTIES} properties in one object`, { limit: MAX_SCHEMA_PROPERTIES });
    }
    for (const [k, v] of entries) {
      if (k !== undefined) {
        chars += k.length;
        if (key === 'patternProperties') checkPattern(k, what);
      }
      // Property names are data, not keywords: `properties: {pattern: {...}}` holds no pattern.
      const childKey = key === 'properties' || key === 'patternProperties' || key === 'definitions' || key === '$defs' ? undefined : k;
      stack.push({ node: v, depth: depth + 1, key: childKey });
    }
    if (chars > MAX_SCHEMA_CHARS) throw refuse(`more than ${MAX_SCHEMA_CHARS} characters`, { limit: MAX_SCHEMA_CHARS });
  }
  if (chars > MAX_SCHEMA_CHARS) throw refuse(`more than ${MAX_SCHEMA_CHARS} characters`, { limit: MAX_SCHEMA_CHARS });
}

function checkPattern(pattern: string, what: string): void {
  if (pattern.length > MAX_SCHEMA_PATTERN_CHARS) {
    throw new BerthError('schema_too_complex', `${what}: a pattern longer than ${MAX_SCHEMA_PATTERN_CHARS} characters`, {
      limit: MAX_SCHEMA_PATTERN_CHARS,
    });
  }
  try {
    linearRegExp(pattern, 'u');
  } catch (err) {
    throw new BerthError('invalid_request', `${what}: ${(err as Error).message}`);
  }
}
