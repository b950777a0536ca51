import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MAX_INSTRUCTIONS_BYTES } from '../../../../src/tools/limits.js';
import { MAX_LIST_ENTRIES } from '../../../../src/workspace/limits.js';
import { refusedWith, toolFixture, type ToolFixture } from './fixture.js';

describe('workspace_list', () => {
  let f: ToolFixture;
  before(() => {
    f = toolFixture({
      '.gitignore': 'node_modules/\n*.log\n',
      'b.txt': 'bb',
      'a.txt': 'a',
      'debug.log': 'noise',
      'src/index.ts': 'x',
      'node_modules/pkg/index.js': 'y',
      '.git/HEAD': 'ref: refs/heads/main\n',
    });
    symlinkSync('a.txt', join(f.root, 'link'));
    const many = join(f.root, 'many');
    mkdirSync(many);
    for (let i = 0; i < MAX_LIST_ENTRIES + 5; i++) writeFileSync(join(many, `f${String(i).padStart(5, '0')}`), '');
  });
  after(() => f.close());

  it('lists the root sorted by name with kinds, sizes and ignore marks, and never .git', async () => {
    const r = await f.call('workspace_list', {});
    assert.equal(r.path, '.');
    assert.deepEqual(r.entries.map((e: { name: string }) => e.name), ['.gitignore', 'a.txt', 'b.txt', 'debug.log', 'link', 'many', 'node_modules', 'src']);
    const by = Object.fromEntries(r.entries.map((e: { name: string }) => [e.name, e]));
    assert.deepEqual(by['b.txt'], { name: 'b.txt', kind: 'file', size: 2, ignored: false });
    assert.deepEqual(by['src'], { name: 'src', kind: 'directory', ignored: false });
    assert.deepEqual(by['link'], { name: 'link', kind: 'symlink', ignored: false });
    assert.equal(by['node_modules'].ignored, true);
    assert.equal(by['debug.log'].ignored, true);
    assert.equal(r.hasMore, false);
    assert.equal(r.cursor, null);
  });

  it('marks everything inside an ignored directory as ignored', async () => {
    const r = await f.call('workspace_list', { path: 'node_modules/pkg' });
    assert.deepEqual(r.entries, [{ name: 'index.js', kind: 'file', size: 1, ignored: true }]);
  });

  it('pages a large directory and the cursor leads to the rest', async () => {
    const first = await f.call('workspace_list', { path: 'many' });
    assert.equal(first.entries.length, MAX_LIST_ENTRIES);
    assert.equal(first.total, MAX_LIST_ENTRIES + 5);
    assert.equal(first.hasMore, true);
    assert.equal(first.cursor, MAX_LIST_ENTRIES);
    const second = await f.call('workspace_list', { path: 'many', offset: first.cursor });
    assert.deepEqual(second.entries.map((e: { name: string }) => e.name), [2000, 2001, 2002, 2003, 2004].map((i) => `f0${i}`));
    assert.equal(second.hasMore, false);
    assert.equal(second.nextOffset, null);
  });

  it('refuses a file, a missing directory and .git itself', async () => {
    await refusedWith(f.call('workspace_list', { path: 'a.txt' }), 'not_regular_file');
    await refusedWith(f.call('workspace_list', { path: 'nope' }), 'path_not_found');
    await refusedWith(f.call('workspace_list', { path: '.git' }), 'permission_denied');
  });
});

describe('workspace_info', () => {
  let f: ToolFixture;
  let plain: ToolFixture;
  const longAgents = 'é'.repeat(MAX_INSTRUCTIONS_BYTES); // 2 bytes each: twice the bound, cut mid-way
  before(() => {
    f = toolFixture({
      'AGENTS.md': longAgents,
      'QWEN.md': 'Use pnpm.\n',
      '.git/HEAD': 'ref: refs/heads/feature/x\n',
    });
    plain = toolFixture({});
  });
  after(async () => {
    await f.close();
    await plain.close();
  });

  it('names the project by its folder, never by its absolute path, and reads the branch from git', async () => {
    const r = await f.call('workspace_info', {});
    assert.equal(r.project.workspaceId, f.workspace.id);
    assert.equal(r.project.name, basename(f.root));
    assert.ok(!JSON.stringify(r).includes(f.root), 'the absolute root must not appear');
    assert.deepEqual(r.project.git, { repository: true, branch: 'feature/x' });
  });

  it('reports the platform and the shell commands run under', async () => {
    const r = await f.call('workspace_info', {});
    assert.equal(r.platform.os, platform());
    assert.equal(r.platform.arch, arch());
    assert.equal(r.platform.shell, '/bin/sh');
    assert.equal(r.platform.node, process.version);
  });

  it('quotes the instruction files found, bounded on a character boundary and marked truncated', async () => {
    const r = await f.call('workspace_info', {});
    assert.deepEqual(r.instructionFiles, ['AGENTS.md', 'QWEN.md']);
    const agents = r.instructions[0];
    assert.equal(agents.truncated, true);
    assert.equal(agents.size, Buffer.byteLength(longAgents));
    assert.equal(Buffer.byteLength(agents.content), MAX_INSTRUCTIONS_BYTES);
    assert.ok(!agents.content.includes('\ufffd'));
    assert.deepEqual(r.instructions[1], { file: 'QWEN.md', content: 'Use pnpm.\n', size: 10, truncated: false });
  });

  it('says when the folder is not a git repository and has no instructions', async () => {
    const r = await plain.call('workspace_info', {});
    assert.deepEqual(r.project.git, { repository: false, branch: null });
    assert.deepEqual(r.instructions, []);
  });

  it('does not follow an instruction file that links out of the workspace', async () => {
    const other = toolFixture({ 'secret.md': 'do not show' });
    try {
      symlinkSync(join(other.root, 'secret.md'), join(plain.root, 'CLAUDE.md'));
      const r = await plain.call('workspace_info', {});
      assert.deepEqual(r.instructionFiles, []);
    } finally {
      await other.close();
    }
  });
});
