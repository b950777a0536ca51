import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadIgnoreRules } from '../../../src/workspace/ignore.js';
import { scopePattern } from '../../../src/workspace/ignore-patterns.js';
import { removeDir, tempDir, writeTree } from '../../support/tmp.js';

const made: string[] = [];
after(() => made.forEach(removeDir));

function workspace(files: Record<string, string>): string {
  const root = tempDir('berth-ignore-');
  made.push(root);
  writeTree(root, files);
  return root;
}

describe('ignore patterns', () => {
  it('a nested pattern without a slash matches at any depth below its directory', () => {
    assert.equal(scopePattern('sub', '*.log'), 'sub/**/*.log');
    assert.equal(scopePattern('sub', '!keep.log'), '!sub/**/keep.log');
    assert.equal(scopePattern('sub', 'out/'), 'sub/**/out/');
  });

  it('a nested pattern with a leading or middle slash is anchored to its directory', () => {
    assert.equal(scopePattern('sub', '/only-here'), 'sub/only-here');
    assert.equal(scopePattern('sub', 'a/b'), 'sub/a/b');
    assert.equal(scopePattern('a/b', '!/x/'), '!a/b/x/');
  });

  it('glob characters in a directory name are taken literally', () => {
    assert.equal(scopePattern('we*rd[1]', 'x'), 'we\\*rd\\[1\\]/**/x');
    assert.equal(scopePattern('#dir', '/x'), '\\#dir/x');
  });

  it('root patterns are kept as written and empty patterns are dropped', () => {
    assert.equal(scopePattern('', 'build/'), 'build/');
    assert.equal(scopePattern('sub', '/'), undefined);
    assert.equal(scopePattern('sub', '!'), undefined);
  });
});

describe('loadIgnoreRules', () => {
  it('a root .gitignore ignores files and whole directories', async () => {
    const root = workspace({
      '.gitignore': 'node_modules/\n*.log\n# a comment\n\nbuild/\n',
      'debug.log': '',
      'build/out.js': '',
      'src/a.ts': '',
      'src/deep/x.log': '',
    });
    const rules = await loadIgnoreRules(root);
    assert.equal(rules.match('debug.log', false), 'file');
    assert.equal(rules.match('src/deep/x.log', false), 'file');
    assert.equal(rules.match('build', true), 'directory');
    assert.equal(rules.match('build/out.js', false), 'directory');
    assert.equal(rules.match('src/a.ts', false), null);
    assert.equal(rules.match('src', true), null);
    assert.equal(rules.match('.', true), null);
  });

  it('a directory-only rule does not hit a file of the same name', async () => {
    const root = workspace({ '.gitignore': 'build/\n', build: 'a file named build' });
    const rules = await loadIgnoreRules(root);
    assert.equal(rules.match('build', false), null);
    assert.equal(rules.match('build', true), 'directory');
  });

  it('.git is always ignored, at any depth, whatever the rules say', async () => {
    const root = workspace({ '.gitignore': '!.git\n', 'a.txt': '' });
    const rules = await loadIgnoreRules(root);
    assert.equal(rules.match('.git', true), 'directory');
    assert.equal(rules.match('.git/config', false), 'directory');
    assert.equal(rules.match('vendor/lib/.git', false), 'file');
    assert.equal(rules.entryTester('')('.git', true), true);
  });

  it('a nested .gitignore applies only below its own directory', async () => {
    const root = workspace({
      'pkg/.gitignore': '*.tmp\n/dist\n',
      'pkg/a.tmp': '',
      'pkg/deep/b.tmp': '',
      'pkg/dist/x.js': '',
      'pkg/deep/dist/y.js': '',
      'other/c.tmp': '',
      'top.tmp': '',
    });
    const rules = await loadIgnoreRules(root);
    assert.equal(rules.match('pkg/a.tmp', false), 'file');
    assert.equal(rules.match('pkg/deep/b.tmp', false), 'file');
    assert.equal(rules.match('pkg/dist/x.js', false), 'directory');
    assert.equal(rules.match('pkg/deep/dist/y.js', false), null, 'an anchored pattern does not float deeper');
    assert.equal(rules.match('other/c.tmp', false), null);
    assert.equal(rules.match('top.tmp', false), null);
  });

  it('a deeper .gitignore can re-include what a shallower one ignores', async () => {
    const root = workspace({
      '.gitignore': '*.log\nbuild/\n',
      'keep/.gitignore': '!important.log\n!build/\n',
      'keep/important.log': '',
      'keep/other.log': '',
      'keep/build/out.js': '',
      'build/out.js': '',
    });
    const rules = await loadIgnoreRules(root);
    assert.equal(rules.match('keep/important.log', false), null);
    assert.equal(rules.match('keep/other.log', false), 'file');
    assert.equal(rules.match('keep/build', true), null);
    assert.equal(rules.match('keep/build/out.js', false), null);
    assert.equal(rules.match('build/out.js', false), 'directory');
  });

  it('nothing inside an ignored directory can be re-included', async () => {
    const root = workspace({
      '.gitignore': 'vendor/\n!vendor/keep.txt\n',
      'vendor/keep.txt': '',
      'vendor/.gitignore': '!keep.txt\n',
    });
    const rules = await loadIgnoreRules(root);
    assert.equal(rules.match('vendor/keep.txt', false), 'directory');
  });

  it('a .gitignore that ignores everything in its directory keeps the directory itself visible', async () => {
    const root = workspace({ 'cache/.gitignore': '*\n!.gitignore\n', 'cache/blob': '' });
    const rules = await loadIgnoreRules(root);
    assert.equal(rules.match('cache', true), null);
    assert.equal(rules.match('cache/blob', false), 'file');
    assert.equal(rules.match('cache/.gitignore', false), null);
  });

  it('.berthignore adds rules and takes precedence over the .gitignore beside it', async () => {
    const root = workspace({
      '.gitignore': '*.env\n',
      '.berthignore': 'secrets/\n!public.env\n',
      'secrets/key': '',
      'public.env': '',
      'private.env': '',
    });
    const rules = await loadIgnoreRules(root);
    assert.equal(rules.match('secrets/key', false), 'directory');
    assert.equal(rules.match('public.env', false), null);
    assert.equal(rules.match('private.env', false), 'file');
  });

  it('.git/info/exclude applies with the lowest precedence', async () => {
    const root = workspace({ '.git/info/exclude': '*.bak\nlocal/\n', '.gitignore': '!keep.bak\n' });
    const rules = await loadIgnoreRules(root);
    assert.equal(rules.match('x.bak', false), 'file');
    assert.equal(rules.match('keep.bak', false), null);
    assert.equal(rules.match('local/a', false), 'directory');
  });

  it('matching is case-sensitive as git is on this platform', { skip: process.platform !== 'linux' }, async () => {
    const root = workspace({ '.gitignore': 'Build/\n' });
    const rules = await loadIgnoreRules(root);
    assert.equal(rules.match('build', true), null);
    assert.equal(rules.match('Build', true), 'directory');
  });

  it('an edited ignore file is picked up by the next snapshot', async () => {
    const root = workspace({ '.gitignore': '*.log\n', 'a.log': '', 'a.txt': '' });
    const first = await loadIgnoreRules(root);
    assert.equal(first.match('a.txt', false), null);
    writeFileSync(join(root, '.gitignore'), '*.txt\n');
    // Same size and an old mtime: only ctime/inode identity can tell the change.
    utimesSync(join(root, '.gitignore'), new Date(2000, 0, 1), new Date(2000, 0, 1));
    const second = await loadIgnoreRules(root);
    assert.equal(second.match('a.txt', false), 'file');
    assert.equal(second.match('a.log', false), null);
  });

  it('a nested ignore file created later is found, and a deleted one is forgotten', async () => {
    const root = workspace({ 'sub/a.tmp': '' });
    const first = await loadIgnoreRules(root);
    assert.equal(first.match('sub/a.tmp', false), null);
    writeFileSync(join(root, 'sub/.gitignore'), '*.tmp\n');
    const second = await loadIgnoreRules(root);
    await second.prepare('sub');
    assert.equal(second.match('sub/a.tmp', false), 'file');
    removeDir(join(root, 'sub/.gitignore'));
    const third = await loadIgnoreRules(root);
    assert.equal(third.match('sub/a.tmp', false), null, 'checked synchronously when not prepared');
  });

  it('a symlinked ignore file is not read', async () => {
    const root = workspace({ 'rules.txt': '*.txt\n', 'a.txt': '' });
    symlinkSync(join(root, 'rules.txt'), join(root, '.gitignore'));
    const rules = await loadIgnoreRules(root);
    assert.equal(rules.match('a.txt', false), null);
  });

  it('prepareListed reads only the ignore files a directory listing shows', async () => {
    const root = workspace({ 'd/.gitignore': 'x\n', 'd/x': '' });
    const rules = await loadIgnoreRules(root);
    await rules.prepareListed('d', new Set(['.gitignore', 'x']));
    const test = rules.entryTester('d');
    assert.equal(test('x', false), true);
    assert.equal(test('y', false), false);
  });

  it('a listed directory\'s own ignore files are read only when its names show them; the root\'s still are', async () => {
    const root = workspace({ '.gitignore': '*.log\n', 'd/.gitignore': 'x\n', 'd/.berthignore': 'y\n', 'd/x': '', 'd/y': '', 'd/z.log': '' });
    const listed = await loadIgnoreRules(root, { dirRel: 'd', names: new Set(['.gitignore', 'x', 'y', 'z.log']) });
    const test = listed.entryTester('d');
    assert.deepEqual([test('x', false), test('y', false), test('z.log', false)], [true, false, true]);
    const both = await loadIgnoreRules(root, { dirRel: 'd', names: new Set(['.gitignore', '.berthignore']) });
    assert.equal(both.entryTester('d')('y', false), true, 'a name the listing shows is read');
  });

  it('odd names (dots, spaces) are tested without throwing', async () => {
    const root = workspace({ '.gitignore': 'a b\n' });
    mkdirSync(join(root, '...'));
    const rules = await loadIgnoreRules(root);
    assert.equal(rules.match('...', true), null);
    assert.equal(rules.match('a b', false), 'file');
  });
});
