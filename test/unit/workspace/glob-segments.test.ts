import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import picomatch from 'picomatch';
import { planGlob } from '../../../src/workspace/glob-pattern.js';
import { segmentMatcher } from '../../../src/workspace/glob-segments.js';

// Names and pattern pieces from a small alphabet, so that random pairs often match. No name ends
// in a dot: there picomatch alone refuses an empty `*` after a literal dot (see the last test).
const name = fc.stringMatching(/^[ab.x-]{0,3}[abx-]$/);
const path = fc.array(name, { minLength: 1, maxLength: 5 }).map((parts) => parts.join('/'));
const plain = fc.stringMatching(/^[ab.*x-]{1,5}$/).filter((s) => !s.includes('**') && s !== '.' && s !== '..');
// A segment may hold one brace group of two or three plain alternatives (`a{b,x*}`), none all stars.
const braced = fc
  .tuple(fc.stringMatching(/^[ab.x]{0,2}$/), fc.array(fc.stringMatching(/^[ab*x]{1,3}$/).filter((a) => !/^\*+$/.test(a)), { minLength: 2, maxLength: 3 }))
  .map(([head, alternatives]) => `${head}{${alternatives.join(',')}}`)
  .filter((s) => !s.includes('**'));
const segment = fc.oneof(fc.constant('**'), plain, braced);
const pattern = fc
  .array(segment, { minLength: 1, maxLength: 4 })
  .filter((parts) => !parts.some((s, i) => s === '**' && i > 0 && parts[i - 1] !== '**' && parts[i - 1]!.includes('*')))
  .map((parts) => parts.join('/'));

test('the segment matcher answers as picomatch does (dot: true) for literal, *, ** and brace patterns', () => {
  fc.assert(
    fc.property(pattern, fc.array(path, { minLength: 1, maxLength: 8 }), (p, paths) => {
      const mine = segmentMatcher(p);
      // Past MAX_ALTERNATIVES a braced pattern goes to the regex engine.
      if (!mine && p.split('{').length - 1 >= 3) return;
      assert.ok(mine, `${p} is a pattern of the segment matcher`);
      const reference = picomatch.makeRe(p, { dot: true });
      for (const candidate of paths) assert.equal(mine(candidate), reference.test(candidate), `${p} against ${candidate}`);
    }),
    { seed: 20261201, numRuns: 3000 },
  );
});

test('patterns with any other glob syntax, empty segments or a partial ** are left to the regex engine', () => {
  for (const p of ['?.js', '[ab]*', '@(a|b)', '!x', 'a\\*b', 'src/', 'a//b', 'a**/b', '**b', 'x+(y)', '*/**', 'a*/**/b', './x', 'a/../b', '{a}', '{a,}', '{1..3}', 'a/**/{*,b}', 'a}b', 'a,b', '{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}']) {
    assert.equal(segmentMatcher(p), undefined, p);
  }
});

test('a star-heavy pattern against long names costs pattern × name steps, not more', () => {
  const matches = segmentMatcher('*a*a*a*a*a*a*a*a*b')!;
  assert.equal(matches('a'.repeat(5000) + 'c'), false);
  assert.equal(matches('aaaaaaaab'), true);
  const deep = segmentMatcher('**/**/**/**/**/x')!;
  assert.equal(deep(Array.from({ length: 200 }, () => 'd').join('/') + '/y'), false);
});

test('a star matches an empty run after a dot too, as a shell glob and the earlier regex path did', () => {
  assert.equal(planGlob('*.*').matches('a.'), true);
  assert.equal(planGlob('**/*.*').matches('x/a.'), true);
  assert.equal(picomatch.makeRe('*.*', { dot: true }).test('a.'), false, 'picomatch alone says no here');
});
