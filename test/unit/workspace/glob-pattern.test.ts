import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BerthError } from '../../../src/protocol/errors/index.js';
import { planGlob } from '../../../src/workspace/glob-pattern.js';

const parseError = (err: unknown) => err instanceof BerthError && err.code === 'parse_error';

describe('planGlob', () => {
  it('starts the walk at the literal prefix and bounds its depth', () => {
    const cases: [string, string, number][] = [
      ['**/*.ts', '', Infinity],
      ['src/core/**/*.test.ts', 'src/core', Infinity],
      ['src/*.ts', 'src', 1],
      ['*/b/*.md', '', 3],
      ['a/b/c.txt', 'a/b', 1],
      ['{src,lib}/*.ts', '', Infinity],
      ['./src/*.ts', 'src', 1],
    ];
    for (const [pattern, base, depth] of cases) {
      const plan = planGlob(pattern);
      assert.deepEqual([plan.base, plan.maxDepth], [base, depth], pattern);
    }
  });

  it('matches dot files like any other', () => {
    const plan = planGlob('**/*');
    assert.ok(plan.matches('.gitignore'));
    assert.ok(plan.matches('src/.env'));
  });

  it('refuses patterns that could name anything outside the cwd', () => {
    for (const p of ['', '../x', 'a/../../b', '/etc/*', 'C:/x', 'c:x', '\\\\srv\\share', 'a\\..\\b', 'a\0b', 'x'.repeat(4097)]) {
      assert.throws(() => planGlob(p), parseError, JSON.stringify(p).slice(0, 30));
    }
  });
});
