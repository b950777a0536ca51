import type { JsonSchema } from './types.js';

/**
 * docs/tool-protocol.md (Catalog Discovery): "additionalProperties: false [is a] protocol
 * default and [is] omitted". A schema on the wire therefore means the
 * opposite of plain JSON Schema when it says nothing: no keyword = closed.
 * These two functions translate between the two readings so meaning survives
 * the trip: closed objects drop the keyword, open ones say `true` out loud.
 * Empty `properties` and `required` are no-ops and are dropped too.
 */
export function toProtocolSchema(schema: JsonSchema): JsonSchema {
  return mapSchema(schema, (node) => {
    if (!isObjectTyped(node)) return node;
    const out: Record<string, unknown> = { ...node };
    if (out.additionalProperties === false) delete out.additionalProperties;
    else if (out.additionalProperties === undefined) out.additionalProperties = true;
    if (isEmptyObject(out.properties)) delete out.properties;
    if (Array.isArray(out.required) && out.required.length === 0) delete out.required;
    return out;
  });
}

/** The inverse, for schemas an application published on the wire: no keyword on an object = closed. */
export function fromProtocolSchema(schema: JsonSchema): JsonSchema {
  return mapSchema(schema, (node) => {
    if (!isObjectTyped(node) || node.additionalProperties !== undefined) return node;
    return { ...node, additionalProperties: false };
  });
}

/** Keywords whose value is one subschema, a list of them, or a map of them (JSON Schema 2020-12 and draft-07). */
const SINGLE = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames'];
const LIST = ['anyOf', 'oneOf', 'allOf', 'prefixItems', 'items'];
const MAP = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];

type Node = Record<string, unknown>;

function mapSchema(schema: JsonSchema, visit: (node: Node) => Node): JsonSchema {
  const walk = (node: unknown): unknown => {
    if (!isPlainObject(node)) return node;
    const copy: Node = { ...node };
    for (const key of SINGLE) if (isPlainObject(copy[key])) copy[key] = walk(copy[key]);
    for (const key of LIST) if (Array.isArray(copy[key])) copy[key] = (copy[key] as unknown[]).map(walk);
    for (const key of MAP) {
      const members = copy[key];
      if (!isPlainObject(members)) continue;
      copy[key] = Object.fromEntries(Object.entries(members).map(([name, sub]) => [name, walk(sub)]));
    }
    return visit(copy);
  };
  return walk(schema) as JsonSchema;
}

function isObjectTyped(node: Node): boolean {
  const type = node.type;
  return type === 'object' || (Array.isArray(type) && type.includes('object'));
}

function isPlainObject(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isEmptyObject(value: unknown): boolean {
  return isPlainObject(value) && Object.keys(value).length === 0;
}
