import assert from 'node:assert/strict';
import { test } from 'node:test';
import picomatch from 'picomatch';
import { BerthError } from '../../../src/protocol/errors/index.js';
import { planGlob } from '../../../src/workspace/glob-pattern.js';

const PATTERNS = [
  '*', '*.ts', '**', '**/*.ts', 'src/**/*.{ts,js}', 'src/*/x', '?.js', '[abc]*.txt', '@(a|b)/*.js', 'a/b/c.txt',
  '**/.env', '.*', 'docs/**', '*.test.*', '{a,b}/**/c?', 'x/**/y/**/z.md', '[!a]*', 'a*b*c',
];
const PATHS = [
  'a.ts', 'src/a.ts', 'src/deep/er/b.js', 'src/x', 'src/y/x', 'a.js', 'b.txt', 'a/b/c.txt', 'a/z.js', 'b/q.js',
  '.env', 'sub/.env', '.hidden', 'docs/readme.md', 'docs', 'a.test.ts', 'a/k/l/c1', 'x/y/z.md', 'x/1/y/2/z.md',
  'zz', 'abc', 'aXbYc', 'ab', 'README.md',
];

test('the linear-time glob matcher answers as picomatch does for ordinary patterns', () => {
  for (const pattern of PATTERNS) {
    const reference = picomatch(pattern, { dot: true });
    const plan = planGlob(pattern);
    for (const path of PATHS) assert.equal(plan.matches(path), reference(path), `${pattern} against ${path}`);
  }
});

test('a backtracking glob against a long name answers at once', () => {
  const plan = planGlob('*a*a*a*a*a*a*a*a*b');
  const started = performance.now();
  assert.equal(plan.matches('a'.repeat(60)), false);
  assert.equal(plan.matches('a'.repeat(5000) + 'c'), false);
  assert.equal(plan.matches('aaaaaaaab'), true);
  assert.ok(performance.now() - started < 500, `took ${Math.round(performance.now() - started)} ms`);
});

test('an extglob negation, which needs lookaround, is refused as parse_error', () => {
  assert.throws(() => planGlob('!(foo).ts'), (err: unknown) => err instanceof BerthError && err.code === 'parse_error');
});
