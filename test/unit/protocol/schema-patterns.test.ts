import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileSchema, toolValidator } from '../../../src/protocol/tools/arguments.js';
import type { JsonSchema } from '../../../src/protocol/tools/types.js';

/**
 * Ajv keeps the compiled `pattern`s of one schema under a key it takes from
 * the regular expression's text; the linear-time engine's objects once all
 * printed as "[object Object]", so every pattern after the first was tested
 * with the first: `b` below accepted "aaa" and refused "bbb".
 */
const twoPatterns = (): JsonSchema => ({
  type: 'object',
  properties: { a: { type: 'string', pattern: '^a+$' }, b: { type: 'string', pattern: '^b+$' }, c: { type: 'string', pattern: '^[^\\s]+$' } },
});

describe('each pattern of a schema is tested with its own expression', () => {
  for (const [name, compile] of [
    ['the daemon\'s own schemas', compileSchema],
    ['a tool\'s validator', toolValidator],
  ] as const) {
    it(name, () => {
      const validate = compile(twoPatterns());
      assert.equal(validate({ a: 'aa', b: 'bbb', c: 'x' }), true, JSON.stringify(validate.errors));
      assert.equal(validate({ a: 'aa', b: 'aaa' }), false);
      assert.equal(validate({ a: 'aa', c: 'has space' }), false);
      assert.equal(validate({ a: 'bb' }), false);
    });
  }
});
