import assert from 'node:assert/strict';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { validatorFor } from '../../src/http/contract.js';
import { startStack, type Stack } from '../support/stack.js';
import { createSession, EventReader, submit } from '../support/session-client.js';
import { git, gitRepo } from '../support/git-repo.js';
import { removeDir, tempDir } from '../support/tmp.js';
import type { TestDaemon } from '../support/daemon.js';

/** `worktree` / `branch` on POST /session (issue 3, spec §5.1): real git worktrees and branches, or a clear 400. */

describe('worktree and branch sessions', () => {
  let s: Stack;
  let d: TestDaemon;
  const repo = gitRepo();
  const plain = tempDir('berth-plain-');
  before(async () => {
    s = await startStack({ workspace: repo, config: { workspaces: [repo, plain] } });
    d = s.daemon;
  });
  after(async () => {
    await s.close();
    removeDir(repo);
    removeDir(plain);
  });

  it('creates a git worktree on its own branch, and the session tools write there, not in the main tree', async () => {
    const res = await createSession(d, { worktree: { slug: 'feature-x' }, approvalMode: 'yolo' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.ok(validatorFor('Session')(res.body));
    assert.equal(res.body.attached, false);
    assert.equal(res.body.worktreeState, 'persisted-v1');
    const { worktree } = res.body;
    assert.equal(worktree.slug, 'feature-x');
    assert.equal(worktree.branch, 'berth/feature-x');
    assert.equal(res.body.workspaceCwd, repo);
    assert.equal(res.body.currentCwd, worktree.path);
    assert.ok(existsSync(join(worktree.path, 'README.md')), 'the worktree holds the checked-out files');
    assert.equal(git(worktree.path, 'rev-parse', '--abbrev-ref', 'HEAD'), 'berth/feature-x');
    assert.ok(git(repo, 'worktree', 'list').includes(realpathSync(worktree.path)));
    assert.equal(git(repo, 'rev-parse', '--abbrev-ref', 'HEAD'), 'main', 'the main tree stays on its branch');

    const sessionId = res.body.sessionId;
    const events = await EventReader.open(d, sessionId);
    s.model.enqueue(
      { kind: 'reply', toolCalls: [{ name: 'workspace_write', arguments: { path: 'made-here.txt', content: 'in the worktree', expectedSha256: null } }] },
      { kind: 'reply', text: 'written' },
    );
    const { promptId } = (await submit(d, sessionId, 'write a file')).body;
    assert.equal((await events.terminal(promptId)).type, 'turn_complete');
    assert.equal(readFileSync(join(worktree.path, 'made-here.txt'), 'utf8'), 'in the worktree');
    assert.equal(existsSync(join(repo, 'made-here.txt')), false, 'the main tree is untouched');
    const call = events.seen.find((e) => e.type === 'session_update' && e.data.update.sessionUpdate === 'tool_call')!;
    assert.deepEqual(call.data.update.locations, [{ path: join(worktree.path, 'made-here.txt') }], 'locations point into the worktree');
    events.close();

    const status = (await d.json('GET', `/session/${sessionId}/status`)).body;
    assert.deepEqual(status.worktree, worktree);
  });

  it('puts the worktree on a named branch and reports the branch it started from', async () => {
    const res = await createSession(d, { worktree: { slug: 'named' }, branch: { name: 'topic/named' } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.worktree.branch, 'topic/named');
    assert.deepEqual(res.body.branch, { name: 'topic/named', baseBranch: 'main' });
    assert.equal(git(res.body.worktree.path, 'rev-parse', '--abbrev-ref', 'HEAD'), 'topic/named');
  });

  it('always creates a fresh session for a worktree, even with single scope', async () => {
    const shared = await createSession(d, {});
    const res = await createSession(d, { sessionScope: 'single', worktree: { slug: 'fresh-one' } });
    assert.equal(res.body.attached, false);
    assert.notEqual(res.body.sessionId, shared.body.sessionId);
    const again = await createSession(d, {});
    assert.equal(again.body.sessionId, shared.body.sessionId, 'the shared session is still the plain one');
  });

  it('refuses a bad slug, a taken slug and an existing branch with 400 invalid_worktree', async () => {
    for (const body of [
      { worktree: { slug: '../escape' } },
      { worktree: { slug: '' } },
      { worktree: { slug: 'feature-x' } }, // berth/feature-x exists since the first test
      { branch: { name: 'main' } },
      { branch: { name: 'bad..name' } },
    ]) {
      const res = await createSession(d, body);
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, 'invalid_worktree');
    }
  });

  it('refuses a worktree or branch on a workspace that is not a git repository with a clear 400', async () => {
    for (const body of [{ cwd: plain, worktree: {} }, { cwd: plain, branch: { name: 'x' } }]) {
      const res = await createSession(d, body);
      assert.equal(res.status, 400);
      assert.equal(res.body.code, 'invalid_worktree');
      assert.match(res.body.error, /git repository/);
    }
    assert.equal(existsSync(join(plain, '.git')), false);
  });

  it('creates a branch alone in the workspace itself and checks it out there', async () => {
    const res = await createSession(d, { branch: { name: 'side' } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.branch, { name: 'side', baseBranch: 'main' });
    assert.equal(res.body.worktree, undefined);
    assert.equal(git(repo, 'rev-parse', '--abbrev-ref', 'HEAD'), 'side');
  });
});

describe('a worktree made for a session that could not start', () => {
  it('is taken back, with its branch, when the session is refused after git made them', async () => {
    const repo = gitRepo();
    // Room for one session: two worktree creates race past the first capacity check, the second is refused at spawn.
    const s = await startStack({ workspace: repo, config: { workspaces: [repo], maxSessions: 1 } });
    try {
      const results = await Promise.all(
        ['race-a', 'race-b'].map((slug) => createSession(s.daemon, { worktree: { slug } })),
      );
      const statuses = results.map((r) => r.status).sort();
      assert.deepEqual(statuses, [200, 503], JSON.stringify(results.map((r) => r.body)));
      const winner = results.find((r) => r.status === 200)!.body.worktree;
      const branches = git(repo, 'branch', '--list', 'berth/*')
        .split('\n')
        .map((b) => b.replace(/^[*+ ]+/, '').trim())
        .filter(Boolean);
      assert.deepEqual(branches, [winner.branch]);
      const worktrees = git(repo, 'worktree', 'list', '--porcelain')
        .split('\n')
        .filter((l) => l.startsWith('worktree '));
      assert.equal(worktrees.length, 2, worktrees.join('\n')); // the main tree and the winner's
      assert.ok(existsSync(winner.path));
    } finally {
      await s.close();
      removeDir(repo);
    }
  });
});
