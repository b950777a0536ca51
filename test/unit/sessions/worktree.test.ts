import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { BerthError } from '../../../src/protocol/errors/index.js';
import { prepareWorktree, undoWorktree } from '../../../src/sessions/worktree.js';
import { git, gitRepo } from '../../support/git-repo.js';
import { removeDir, tempDir } from '../../support/tmp.js';

/** Sessions created at the same moment on one repository: git's own locks must never decide their answer. */

const branches = (repo: string) =>
  git(repo, 'branch', '--list', 'berth/*')
    .split('\n')
    .map((b) => b.replace(/^[*+ ]+/, '').trim())
    .filter(Boolean)
    .sort();

describe('worktrees made at the same moment', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach(removeDir));
  const fresh = () => {
    const repo = gitRepo();
    const home = tempDir('berth-home-');
    dirs.push(repo, home);
    return { repo, home };
  };

  it('all succeed when they ask for different slugs', async () => {
    const { repo, home } = fresh();
    const slugs = ['a', 'b', 'c', 'd', 'e', 'f'];
    const made = await Promise.all(slugs.map((slug, i) => prepareWorktree(repo, home, 'ws', `0000000${i}-0000-4000-8000-000000000000`, { worktree: { slug } })));
    assert.deepEqual(made.map((m) => m.worktree?.branch).sort(), slugs.map((s) => `berth/${s}`));
    assert.deepEqual(branches(repo), slugs.map((s) => `berth/${s}`));
  });

  it('give one of two asking for the same branch the clear refusal, not git lock errors', async () => {
    const { repo, home } = fresh();
    const results = await Promise.allSettled(
      ['x', 'y'].map((slug, i) => prepareWorktree(repo, home, 'ws', `1000000${i}-0000-4000-8000-000000000000`, { worktree: { slug }, branch: { name: 'berth/same' } })),
    );
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    assert.equal(refused.length, 1);
    assert.ok(refused[0]!.reason instanceof BerthError);
    assert.equal((refused[0]!.reason as BerthError).code, 'invalid_worktree');
    assert.deepEqual(branches(repo), ['berth/same']);
  });

  it('take back one while another is made', async () => {
    const { repo, home } = fresh();
    const first = await prepareWorktree(repo, home, 'ws', '20000000-0000-4000-8000-000000000000', { worktree: { slug: 'gone' } });
    const [, second] = await Promise.all([undoWorktree(repo, first), prepareWorktree(repo, home, 'ws', '20000001-0000-4000-8000-000000000000', { worktree: { slug: 'kept' } })]);
    assert.equal(second.worktree?.branch, 'berth/kept');
    assert.deepEqual(branches(repo), ['berth/kept']);
  });
});
