import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BerthError } from '../protocol/errors/index.js';

const run = promisify(execFile);
const SLUG = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

async function git(cwd: string, args: string[]): Promise<string> {
  const { stdout } = await run('git', args, { cwd, timeout: 30_000, maxBuffer: 1024 * 1024 });
  return stdout.trim();
}

/**
 * The last change under way in each repository. Git locks its refs, its config and its list of
 * worktrees while it changes them, and a second `git worktree add` or `checkout -b` running at the
 * same moment fails on those locks; two sessions created at once would then get a 500 for what is
 * only a wait. Changes to one repository therefore run one after the other, each with its checks,
 * so that two asking for the same branch get the clear refusal, not git's lock error.
 */
const changing = new Map<string, Promise<unknown>>();

function oneAtATime<T>(root: string, change: () => Promise<T>): Promise<T> {
  const mine = (changing.get(root) ?? Promise.resolve()).then(change);
  const settled = mine.catch(() => undefined);
  changing.set(root, settled);
  // The map keeps only repositories with a change under way or queued.
  void settled.then(() => changing.get(root) === settled && changing.delete(root));
  return mine;
}

async function requireRepo(root: string): Promise<void> {
  try {
    if ((await git(root, ['rev-parse', '--is-inside-work-tree'])) === 'true') return;
  } catch {
    /* fall through */
  }
  throw new BerthError('invalid_worktree', 'worktree and branch need the workspace to be a git repository');
}

async function currentBranch(root: string): Promise<string> {
  try {
    return await git(root, ['rev-parse', '--abbrev-ref', 'HEAD']);
  } catch {
    throw new BerthError('invalid_worktree', 'the repository has no commit to branch from');
  }
}

async function checkBranchName(root: string, name: string): Promise<void> {
  try {
    await git(root, ['check-ref-format', '--branch', name]);
  } catch {
    throw new BerthError('invalid_worktree', `"${name}" is not a valid git branch name`);
  }
  const exists = await git(root, ['branch', '--list', name]);
  if (exists !== '') throw new BerthError('invalid_worktree', `branch "${name}" already exists`);
}

export interface WorktreeResult {
  readonly worktree: { slug: string; path: string; branch: string } | null;
  readonly branch: { name: string; baseBranch: string } | null;
  /** Where the session's tools run. */
  readonly cwd: string;
}

/**
 * Real `git worktree` / branch creation for `POST /session`:
 * `worktree` adds a worktree under the daemon home on a new branch
 * (`berth/<slug>` unless `branch.name` is given); `branch` alone creates the
 * branch and checks it out in the workspace itself. Both need a git repository.
 */
export const prepareWorktree = (...args: Parameters<typeof make>): Promise<WorktreeResult> => oneAtATime(args[0], () => make(...args));

async function make(
  root: string,
  home: string,
  workspaceId: string,
  sessionId: string,
  request: { worktree?: { slug?: string }; branch?: { name: string } },
): Promise<WorktreeResult> {
  await requireRepo(root);
  const baseBranch = await currentBranch(root);
  if (request.worktree) {
    const slug = request.worktree.slug ?? `session-${sessionId.slice(0, 8)}`;
    if (!SLUG.test(slug)) {
      throw new BerthError('invalid_worktree', 'worktree.slug is 1-64 chars of [A-Za-z0-9._-] starting with a letter or digit');
    }
    const branchName = request.branch?.name ?? `berth/${slug}`;
    await checkBranchName(root, branchName);
    const dir = join(home, 'worktrees', workspaceId);
    mkdirSync(dir, { recursive: true });
    const path = join(dir, slug);
    try {
      await git(root, ['worktree', 'add', '-b', branchName, path, 'HEAD']);
    } catch (err) {
      throw new BerthError('worktree_failed', `git worktree add failed: ${(err as Error).message.split('\n')[0]}`);
    }
    return {
      worktree: { slug, path, branch: branchName },
      branch: request.branch ? { name: branchName, baseBranch } : null,
      cwd: path,
    };
  }
  const name = request.branch!.name;
  await checkBranchName(root, name);
  try {
    await git(root, ['checkout', '-b', name]);
  } catch (err) {
    throw new BerthError('worktree_failed', `git checkout -b failed: ${(err as Error).message.split('\n')[0]}`);
  }
  return { worktree: null, branch: { name, baseBranch }, cwd: root };
}

/**
 * Takes back what `prepareWorktree` made when the session it was for could not
 * start: the worktree and its branch, or the branch checked out in the workspace
 * (back to the branch it came from). Best effort: a failure here is logged by git only.
 */
export const undoWorktree = (root: string, made: WorktreeResult): Promise<void> => oneAtATime(root, () => undo(root, made));

async function undo(root: string, made: WorktreeResult): Promise<void> {
  const quiet = (args: string[]) => git(root, args).catch(() => '');
  if (made.worktree) {
    await quiet(['worktree', 'remove', '--force', made.worktree.path]);
    await quiet(['branch', '-D', made.worktree.branch]);
    return;
  }
  if (made.branch) {
    await quiet(['checkout', made.branch.baseBranch]);
    await quiet(['branch', '-D', made.branch.name]);
  }
}
