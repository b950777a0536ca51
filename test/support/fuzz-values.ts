import fc from 'fast-check';

/**
 * Values for the fuzz suites: valid instances of a JSON Schema (the subset
 * `contract/openapi.json` uses), near-valid ones (one rule broken), and
 * hostile ones an attacker would try — prototype keys, deep nesting, huge
 * strings, wrong types, unpaired surrogates.
 */

export type Schema = Record<string, any>;
type Defs = Record<string, Schema>;

const deref = (schema: Schema, defs: Defs): Schema => {
  let s = schema;
  while (s && typeof s.$ref === 'string') s = defs[s.$ref.split('/').pop()!]!;
  return s ?? {};
};

/** A valid instance of `schema` (as far as the subset goes: formats other than uuid are plain strings). */
export function validOf(schema: Schema, defs: Defs, depth = 0): fc.Arbitrary<unknown> {
  const s = deref(schema, defs);
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum);
  if (Array.isArray(s.oneOf)) return fc.oneof(...s.oneOf.map((x: Schema) => validOf(x, defs, depth + 1)));
  if (Array.isArray(s.anyOf)) return fc.oneof(...s.anyOf.map((x: Schema) => validOf(x, defs, depth + 1)));
  if (Array.isArray(s.allOf)) {
    // The contract's allOf merge object parts: generate each and merge.
    return fc.tuple(...s.allOf.map((x: Schema) => validOf(x, defs, depth + 1))).map((parts) => Object.assign({}, ...parts));
  }
  const type = Array.isArray(s.type) ? s.type : s.type ? [s.type] : ['object'];
  return fc.oneof(...type.map((t: string) => validOfType(t, s, defs, depth)));
}

function validOfType(type: string, s: Schema, defs: Defs, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: s.minimum ?? -1_000_000, max: s.maximum ?? 1_000_000 });
    case 'number':
      return fc.double({ min: s.minimum ?? -1e9, max: s.maximum ?? 1e9, noNaN: true });
    case 'string': {
      if (s.format === 'uuid') return fc.uuid({ version: [1, 2, 3, 4, 5] });
      if (typeof s.pattern === 'string') {
        return fc.stringMatching(new RegExp(s.pattern)).filter((x) => x.length >= (s.minLength ?? 0) && x.length <= (s.maxLength ?? 4096));
      }
      return fc.string({ minLength: s.minLength ?? 0, maxLength: Math.min(s.maxLength ?? 40, 200), unit: 'grapheme' });
    }
    case 'array': {
      if (depth > 4) return fc.constant([]);
      return fc.array(validOf(s.items ?? {}, defs, depth + 1), { minLength: s.minItems ?? 0, maxLength: Math.min(s.maxItems ?? 3, 3) });
    }
    default: {
      const props: Record<string, Schema> = s.properties ?? {};
      const required: string[] = s.required ?? [];
      if (depth > 4 && required.length === 0) return fc.constant({});
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, v] of Object.entries(props)) model[k] = validOf(v, defs, depth + 1);
      return fc.record(model, { requiredKeys: required.filter((k) => k in props) });
    }
  }
}

/** A value of the wrong JSON type, or no JSON type at all. */
export const wrongType = (): fc.Arbitrary<unknown> =>
  fc.oneof(
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double(),
    fc.constantFrom(Number.MAX_SAFE_INTEGER + 2, -1, 0, 1e308, -0),
    fc.string({ maxLength: 20 }),
    fc.array(fc.integer(), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 3 }),
  );

/** Keys a careless reader looks up on the prototype. */
export const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__'] as const;

/** Strings that break careless handling: unpaired surrogates, NUL and control bytes, path tricks, very long. */
export const hostileString = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constantFrom(
      '',
      ' ',
      '\u0000',
      '\ud800',
      'a\udfffb',
      '\u202e\u0000\u001b[31m',
      '../../../../etc/passwd',
      '/etc/passwd',
      '..',
      '.',
      '%00',
      '%2e%2e%2f',
      '\\..\\..\\windows',
      'C:\\',
      '~',
      '${HOME}',
      '$(id)',
      '`id`',
      '<script>alert(1)</script>',
      '{{7*7}}',
      'null',
      'undefined',
      '__proto__',
      'NaN',
      '-1',
      '1e400',
      '0x10',
      '🦀'.repeat(50),
    ),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.string({ unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)), maxLength: 8 }),
    fc.integer({ min: 1_000, max: 100_000 }).map((n) => 'x'.repeat(n)),
  );

/** A JSON-ish value nested `depth` deep in arrays or objects. */
export const nested = (depth: number, leaf: unknown = 1, asArray = true): unknown => {
  let v: unknown = leaf;
  for (let i = 0; i < depth; i++) v = asArray ? [v] : { a: v };
  return v;
};

/** Deep nesting as JSON text (built as text: `JSON.stringify` itself overflows on very deep values). */
export const nestedJson = (depth: number, asArray: boolean): string => (asArray ? '['.repeat(depth) + '1' + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth));

/** One hostile JSON value (not text) for any slot. */
export const hostileValue = (): fc.Arbitrary<unknown> =>
  fc.oneof(
    wrongType(),
    hostileString(),
    fc.integer({ min: 10, max: 300 }).chain((d) => fc.boolean().map((arr) => nested(d, 'deep', arr))),
    fc.constantFrom(...PROTO_KEYS).map((k) => JSON.parse(`{"${k}": {"polluted": true}}`)),
    fc.jsonValue({ maxDepth: 4 }),
  );

/** A body with own keys a prototype lookup would confuse (built by JSON.parse so `__proto__` is an own key). */
export const protoBody = (): fc.Arbitrary<string> =>
  fc
    .tuple(fc.constantFrom(...PROTO_KEYS), fc.oneof(fc.constant('"x"'), fc.constant('{"polluted":true}'), fc.constant('null'), fc.constant('[]')))
    .map(([k, v]) => `{"${k}":${v}}`);

/**
 * A near-valid variant of a valid object: one required key dropped, one key
 * of a wrong type, one unknown key added, or one prototype key added.
 */
export function nearValidOf(valid: fc.Arbitrary<unknown>, schema: Schema, defs: Defs): fc.Arbitrary<unknown> {
  const s = deref(schema, defs);
  const keys = Object.keys(s.properties ?? {});
  return fc.tuple(valid, fc.nat(), fc.nat(), hostileValue(), fc.constantFrom('drop', 'wrong', 'extra', 'proto')).map(([v, i, j, bad, how]) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return bad;
    const o: Record<string, unknown> = { ...(v as Record<string, unknown>) };
    if (how === 'drop') {
      const present = Object.keys(o);
      if (present.length > 0) delete o[present[i % present.length]!];
      return o;
    }
    if (how === 'wrong' && keys.length > 0) {
      o[keys[i % keys.length]!] = bad;
      return o;
    }
    if (how === 'proto') {
      // A function, not a replacement string: a generated value holding `$'` or `$&` would otherwise be expanded.
      const head = `{"${PROTO_KEYS[j % PROTO_KEYS.length]}":${JSON.stringify(bad) ?? 'null'}${Object.keys(o).length ? ',' : ''}`;
      return JSON.parse(JSON.stringify(o).replace(/^\{/, () => head));
    }
    o[`unknown_${j % 5}`] = bad;
    return o;
  });
}
