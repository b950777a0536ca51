import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { Ajv } from 'ajv';
import { GENERATED_FILE, requestValidatorsSource } from '../../../scripts/gen-request-validators.js';
import { OPENAPI, REQUEST_BODIES, validatorFor } from '../../../src/http/contract.js';

const routes = new URL('../../../src/http/', import.meta.url);

/** Every schema name a route passes to parseBody, read from the sources. */
function parsedSchemas(): Set<string> {
  const names = new Set<string>();
  for (const entry of readdirSync(routes, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const text = readFileSync(`${entry.parentPath}/${entry.name}`, 'utf8');
    for (const m of text.matchAll(/parseBody(?:<[^(]*?>)?\(\s*'([A-Za-z]+)'/gs)) names.add(m[1]!);
  }
  return names;
}

describe('request bodies compiled ahead, at development time', () => {
  it('lists every schema a route checks a body against', () => {
    const used = parsedSchemas();
    assert.ok(used.has('CreateSessionRequest'), `the scan finds parseBody calls: ${[...used].join(', ')}`);
    assert.deepEqual([...used].filter((n) => !(REQUEST_BODIES as readonly string[]).includes(n)), []);
  });

  it('names only schemas the contract has, and has a compiled validator for each', () => {
    for (const name of REQUEST_BODIES) {
      assert.ok(OPENAPI.components.schemas[name], name);
      assert.equal(validatorFor(name)({ bogus: true }), false, `${name} refuses an unknown field`);
    }
  });

  it('are compiled from the contract as it is now (run scripts/gen-request-validators.ts after changing it)', () => {
    assert.equal(readFileSync(GENERATED_FILE, 'utf8'), requestValidatorsSource());
  });
});

describe('the contract\'s schemas', () => {
  it('are valid JSON Schema, every one (the daemon trusts them without checking at start-up)', () => {
    const ajv = new Ajv({ strict: false, validateFormats: false });
    const refs = (node: unknown): unknown =>
      Array.isArray(node)
        ? node.map(refs)
        : node && typeof node === 'object'
          ? Object.fromEntries(Object.entries(node).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' ? v.replace('#/components/schemas/', '') : refs(v)]))
          : node;
    const schemas = Object.entries(OPENAPI.components.schemas);
    assert.ok(schemas.length > 40, `${schemas.length} schemas`);
    for (const [name, schema] of schemas) ajv.addSchema(refs(schema) as object, name);
    for (const [name] of schemas) assert.ok(ajv.getSchema(name), name);
    for (const [name, schema] of schemas) assert.equal(ajv.validateSchema(refs(schema) as object), true, `${name}: ${ajv.errorsText()}`);
  });
});
