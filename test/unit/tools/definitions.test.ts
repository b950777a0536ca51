import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalJson, sha256Revision } from '../../../src/protocol/tools/canonical-json.js';
import { definitionRevision, wireDefinition } from '../../../src/protocol/tools/definitions.js';
import { fromProtocolSchema, toProtocolSchema } from '../../../src/protocol/tools/protocol-schema.js';
import { countingTool } from '../../support/tools.js';

describe('canonical JSON and definition revisions', () => {
  it('writes object keys sorted at every depth and without whitespace', () => {
    assert.equal(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: null } }), '{"a":{"c":null,"d":[2,{"y":2,"z":1}]},"b":1}');
    assert.equal(canonicalJson({ a: undefined, b: 'x' }), '{"b":"x"}');
  });

  it('hashes equal values to one revision whatever their key order', () => {
    assert.equal(sha256Revision({ a: 1, b: 2 }), sha256Revision({ b: 2, a: 1 }));
    assert.match(sha256Revision({ a: 1 }), /^sha256:[0-9a-f]{64}$/);
  });

  it('gives the same definition the same revision and a changed definition a new one', () => {
    const a = countingTool('t.one');
    const b = countingTool('t.one');
    assert.equal(definitionRevision(a), definitionRevision(b));
    const described = countingTool('t.one', { description: 'Another description' });
    assert.notEqual(definitionRevision(a), definitionRevision(described));
    const writes = countingTool('t.one', { policy: 'write' });
    assert.notEqual(definitionRevision(a), definitionRevision(writes));
  });

  it('publishes a definition under its id with protocol defaults omitted', () => {
    const tool = { ...countingTool('map.capture'), title: 'Capture Map', prerequisiteToolIds: ['route.open', 'route.open', ' '] };
    const wire = wireDefinition(tool);
    assert.equal(wire.id, 'map.capture');
    assert.equal(wire.name, 'Capture Map');
    assert.deepEqual(wire.prerequisiteToolIds, ['route.open']);
    assert.equal('annotations' in wire, false, 'empty annotations are omitted');
    assert.equal('additionalProperties' in wire.inputSchema, false, 'closed objects are the default');
  });
});

describe('the seed 003 schema projection', () => {
  it('drops additionalProperties false and states true where plain JSON Schema left objects open', () => {
    const schema = {
      type: 'object',
      properties: { name: { type: 'string' }, arguments: { type: 'object' } },
      required: [],
      additionalProperties: false,
    };
    const wire = toProtocolSchema(schema);
    assert.deepEqual(wire, {
      type: 'object',
      properties: { name: { type: 'string' }, arguments: { type: 'object', additionalProperties: true } },
    });
    assert.equal(schema.additionalProperties, false, 'the input schema is not modified');
  });

  it('reads a wire schema back with closed objects where the keyword is absent', () => {
    const wire = { type: 'object', properties: { inner: { type: ['object', 'null'] }, open: { type: 'object', additionalProperties: true } } };
    assert.deepEqual(fromProtocolSchema(wire), {
      type: 'object',
      additionalProperties: false,
      properties: {
        inner: { type: ['object', 'null'], additionalProperties: false },
        open: { type: 'object', additionalProperties: true },
      },
    });
  });
});
