import fc from 'fast-check';
import { OPENAPI } from '../../src/http/contract.js';
import { hostileString, hostileValue, nearValidOf, nestedJson, protoBody, validOf, type Schema } from '../support/fuzz-values.js';

/**
 * HTTP cases generated from `contract/openapi.json`: for each operation, its
 * path parameters, query, headers and body — valid, near-valid (one rule
 * broken) or hostile — as the bytes a client would send.
 */

const DEFS = OPENAPI.components.schemas as Record<string, Schema>;

export interface Operation {
  readonly method: string;
  readonly template: string;
  /** Statuses the contract lists for it (`default` aside). */
  readonly documented: ReadonlySet<number>;
  readonly params: ReadonlyArray<{ name: string; in: string; schema: Schema }>;
  readonly body?: Schema;
}

export const OPERATIONS: readonly Operation[] = Object.entries(OPENAPI.paths).flatMap(([template, ops]) =>
  Object.entries(ops as Record<string, any>)
    .filter(([, op]) => op && typeof op === 'object' && op.responses)
    .map(([method, op]) => ({
      method: method.toUpperCase(),
      template,
      documented: new Set(Object.keys(op.responses).filter((s) => s !== 'default').map(Number)),
      params: (op.parameters ?? []).map((p: any) => ({ name: p.name, in: p.in, schema: p.schema ?? {} })),
      ...(op.requestBody ? { body: op.requestBody.content['application/json'].schema } : {}),
    })),
);

/** A path parameter: one of the suite's live sessions (by index), or a literal already percent-encoded. */
export type PathValue = { fixture: number } | { raw: string };

export interface HttpCase {
  readonly op: Operation;
  readonly kind: 'valid' | 'near-valid' | 'hostile';
  readonly pathValues: Record<string, PathValue>;
  readonly query: string;
  readonly headers: Record<string, string>;
  readonly body?: string | Buffer;
}

/** Percent-encodes every byte of the UTF-8 form (a lone surrogate becomes U+FFFD, as any client would send it). */
export const encodeAll = (s: string): string =>
  [...Buffer.from(s, 'utf8')].map((b) => (/[A-Za-z0-9._~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).padStart(2, '0')}`)).join('');

const badPercent = fc.constantFrom('%', '%zz', '%ff%fe', '%c0%af', '%ed%a0%80', '%00', '%2f..%2f', '..%2f..%2f', '%25');

const pathValue = (fixtures: number): fc.Arbitrary<PathValue> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.nat({ max: fixtures - 1 }).map((fixture) => ({ fixture })) },
    { weight: 2, arbitrary: fc.uuid().map((u) => ({ raw: u })) },
    { weight: 2, arbitrary: hostileString().filter((s) => s.length < 2_000 && s.length > 0).map((s) => ({ raw: encodeAll(s) })) },
    { weight: 1, arbitrary: badPercent.map((raw) => ({ raw })) },
  );

const stringify = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v) ?? 'null');

/** One query parameter: valid, of a wrong type, hostile, badly encoded, repeated or absent. */
const queryPart = (name: string, schema: Schema): fc.Arbitrary<string[]> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant<string[]>([]) },
    { weight: 4, arbitrary: validOf(schema, DEFS).map((v) => [`${name}=${encodeAll(stringify(v))}`]) },
    { weight: 2, arbitrary: hostileValue().map((v) => [`${name}=${encodeAll(stringify(v).slice(0, 5_000))}`]) },
    { weight: 1, arbitrary: badPercent.map((b) => [`${name}=${b}`]) },
    { weight: 1, arbitrary: fc.tuple(validOf(schema, DEFS), validOf(schema, DEFS)).map(([a, b]) => [`${name}=${encodeAll(stringify(a))}`, `${name}=${encodeAll(stringify(b))}`]) },
    { weight: 1, arbitrary: fc.constant<string[]>([`${name}`, `${name}[]=1`, `${name}[__proto__]=1`]) },
  );

/** Header values Node can send: visible ASCII, sometimes latin-1, sometimes long. */
const headerText = fc.oneof(
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 200 }),
  fc.string({ unit: fc.integer({ min: 0xa0, max: 0xff }).map((c) => String.fromCharCode(c)), maxLength: 20 }),
  fc.integer({ min: 100, max: 16_000 }).map((n) => 'a'.repeat(n)),
);

const headerPart = (name: string, schema: Schema): fc.Arbitrary<Array<[string, string]>> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant<Array<[string, string]>>([]) },
    { weight: 3, arbitrary: validOf(schema, DEFS).map((v) => [[name, stringify(v)] as [string, string]]) },
    { weight: 2, arbitrary: headerText.map((v) => [[name, v] as [string, string]]) },
  );

/** A body for `schema`: the text and content-type a client sends. */
type Body = { kind: HttpCase['kind']; body?: string | Buffer; type?: string };

function bodyFor(schema: Schema | undefined): fc.Arbitrary<Body> {
  const json = (kind: HttpCase['kind']) => (v: unknown) => ({ kind, body: JSON.stringify(v), type: 'application/json' });
  const valid = schema ? validOf(schema, DEFS) : fc.constant({});
  return fc.oneof(
    { weight: 6, arbitrary: valid.map(json('valid')) },
    { weight: 6, arbitrary: nearValidOf(valid, schema ?? {}, DEFS).map(json('near-valid')) },
    { weight: 3, arbitrary: hostileValue().map(json('hostile')) },
    { weight: 2, arbitrary: protoBody().map((body) => ({ kind: 'hostile' as const, body, type: 'application/json' })) },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.integer({ min: 100, max: 6_000 }), fc.boolean()).map(([d, arr]) => ({ kind: 'hostile' as const, body: nestedJson(d, arr), type: 'application/json' })),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom('{', '{"a":1', '[1,2', 'nul', '"unterminated', '{"a":1}{"b":2}', '\u0000', '{"a":1,}', "{'a':1}").map((body) => ({
        kind: 'hostile' as const,
        body,
        type: 'application/json',
      })),
    },
    {
      weight: 1,
      arbitrary: fc.uint8Array({ minLength: 1, maxLength: 64 }).map((bytes) => ({
        kind: 'hostile' as const,
        body: Buffer.concat([Buffer.from('{"text":"'), Buffer.from([0xff, 0xfe, 0xc0, 0x80]), Buffer.from(bytes), Buffer.from('"}')]),
        type: 'application/json',
      })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(valid, fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=utf-16', 'application/json; charset=latin1', 'application/jsonx', ''))
        .map(([v, type]) => ({ kind: 'hostile' as const, body: JSON.stringify(v), type })),
    },
    { weight: 1, arbitrary: fc.constant({ kind: 'hostile' as const }) },
    {
      weight: 1,
      // Mostly tens of kilobytes, now and then megabytes: a long text is cheap to refuse, costly to store.
      arbitrary: fc
        .oneof({ weight: 20, arbitrary: fc.integer({ min: 1, max: 50_000 }) }, { weight: 1, arbitrary: fc.integer({ min: 1_000_000, max: 3_000_000 }) })
        .map((n) => ({ kind: 'hostile' as const, body: JSON.stringify({ prompt: [{ type: 'text', text: 'y'.repeat(n) }] }), type: 'application/json' })),
    },
  );
}

/** One case for `op`, to be aimed at one of `fixtures` sessions when it names a session. */
export function caseFor(op: Operation, fixtures: number): fc.Arbitrary<HttpCase> {
  const pathNames = op.params.filter((p) => p.in === 'path').map((p) => p.name);
  const queryParams = op.params.filter((p) => p.in === 'query');
  const headerParams = op.params.filter((p) => p.in === 'header');
  return fc
    .record({
      path: fc.tuple(...pathNames.map(() => pathValue(fixtures))),
      query: fc.tuple(...queryParams.map((p) => queryPart(p.name, p.schema))),
      extraQuery: fc.oneof({ weight: 5, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: fc.constant(['token=abc']) }, { weight: 1, arbitrary: fc.constant(['__proto__=1', 'constructor=x']) }),
      headers: fc.tuple(...headerParams.map((p) => headerPart(p.name, p.schema))),
      body: op.body || op.method !== 'GET' ? bodyFor(op.body) : fc.constant<Body>({ kind: 'valid' }),
    })
    .map(({ path, query, extraQuery, headers, body }) => {
      const pathValues: Record<string, PathValue> = {};
      pathNames.forEach((n, i) => (pathValues[n] = path[i]!));
      const h: Record<string, string> = Object.fromEntries(headers.flat());
      if (body.type) h['content-type'] = body.type;
      const parts = [...query.flat(), ...extraQuery];
      const kind = body.kind;
      return {
        op,
        kind,
        pathValues,
        query: parts.length ? `?${parts.join('&')}` : '',
        headers: h,
        ...(body.body !== undefined ? { body: body.body } : {}),
      };
    });
}

/** The request line's path for a case, given the live fixture session ids (and permission request ids). */
export function pathOf(c: HttpCase, fixtureIds: readonly string[]): string {
  const path = c.op.template.replace(/\{(\w+)\}/g, (_m, name: string) => {
    const v = c.pathValues[name]!;
    return 'fixture' in v ? fixtureIds[v.fixture % fixtureIds.length]! : v.raw;
  });
  return path + c.query;
}

/** A case in a few words, for failure messages and the replay. */
export function describeCase(c: HttpCase, path: string): string {
  const body = c.body === undefined ? '' : Buffer.isBuffer(c.body) ? `<${c.body.length} bytes>` : c.body.length > 300 ? `${c.body.slice(0, 300)}…(${c.body.length} chars)` : c.body;
  return `${c.op.method} ${path.slice(0, 300)} [${c.kind}] headers=${JSON.stringify(c.headers).slice(0, 300)} body=${body}`;
}
