import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

/**
 * Issue 11, what `npm ci` and `import('berth')` give a newcomer: every export
 * of package.json is built from a source file that exists, and the README
 * names exactly the installed packages whose `engines` exclude the oldest
 * Node the package supports (the ones `npm ci` warns about there).
 */

const root = new URL('../../..', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
const readme = readFileSync(join(root, 'README.md'), 'utf8');

type Version = [number, number, number];
const parse = (v: string): Version => {
  const [a = 0, b = 0, c = 0] = v.replace(/^[v=]/, '').split('.').map((x) => Number.parseInt(x, 10) || 0);
  return [a, b, c];
};
const cmp = (x: Version, y: Version) => x[0] - y[0] || x[1] - y[1] || x[2] - y[2];

/** Whether `version` satisfies an engines range of the forms npm packages use: `>=a.b`, `^a.b.c`, `a || b`, ranges with spaces. */
function satisfies(version: Version, range: string): boolean {
  return range.split('||').some((alt) =>
    alt
      .trim()
      .replace(/(>=|<=|>|<|\^|~)\s+/g, '$1')
      .split(/\s+/)
      .filter(Boolean)
      .every((part) => {
        const m = /^(>=|>|<=|<|\^|~)?(.+)$/.exec(part)!;
        const want = parse(m[2]!.replace(/\.x|\.\*/g, ''));
        const c = cmp(version, want);
        switch (m[1]) {
          case '>=':
            return c >= 0;
          case '>':
            return c > 0;
          case '<=':
            return c <= 0;
          case '<':
            return c < 0;
          case '^':
            return c >= 0 && version[0] === want[0];
          case '~':
            return c >= 0 && version[0] === want[0] && version[1] === want[1];
          default:
            return part === '*' || version[0] === want[0];
        }
      }),
  );
}

describe('what npm ci and import give a newcomer', () => {
  it('every export of package.json is built from a source file that exists', () => {
    for (const [name, target] of Object.entries(pkg.exports as Record<string, string | Record<string, string>>)) {
      const file = typeof target === 'string' ? target : target.default!;
      const source = file.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts');
      assert.ok(existsSync(join(root, source)), `export "${name}" → ${file}, but ${source} does not exist`);
    }
  });

  it("the '.' export is the application SDK, as `berth/app` is", () => {
    assert.deepEqual(pkg.exports['.'], pkg.exports['./app']);
  });

  it('the README names exactly the packages whose engines exclude the oldest Node this package supports', () => {
    const oldest = parse(/(\d+(\.\d+)*)/.exec(pkg.engines.node)![1]!);
    const warned = Object.entries(lock.packages as Record<string, { engines?: { node?: string } }>)
      .filter(([path, p]) => path !== '' && typeof p.engines?.node === 'string' && !satisfies(oldest, p.engines.node))
      .map(([path]) => path.replace(/^.*node_modules\//, ''))
      .sort();
    const paragraph = /`npm ci` prints `EBADENGINE` warnings for ([^.]+)\./.exec(readme.replace(/\s+/g, ' '));
    assert.ok(paragraph, 'the README says which dependencies npm ci warns about');
    const named = [...paragraph[1]!.matchAll(/`([^`]+)` \(/g)].map((m) => m[1]!).sort();
    assert.deepEqual(named, warned);
  });

  it('the engines check knows the forms it reads', () => {
    assert.equal(satisfies([20, 11, 0], '>=22'), false);
    assert.equal(satisfies([20, 11, 0], '>=18.0.0'), true);
    assert.equal(satisfies([20, 11, 0], '^18.17.0 || >=20.3.0'), true);
    assert.equal(satisfies([20, 11, 0], '>= 12.13.0'), true);
    assert.equal(satisfies([20, 11, 0], '>=14 <20'), false);
  });
});
