import { execFileSync } from 'node:child_process';
import { tempDir, writeTree } from './tmp.js';

/** Runs git in `cwd` without the machine's system config, and answers its trimmed output. */
export const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } }).trim();

/** A new repository on `main` with one commit (a README), in a temp folder the caller removes. */
export function gitRepo(): string {
  const dir = tempDir('berth-repo-');
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.email', 'test@berth.invalid');
  git(dir, 'config', 'user.name', 'Berth Test');
  writeTree(dir, { 'README.md': '# repo\n' });
  git(dir, 'add', '.');
  git(dir, 'commit', '-q', '-m', 'first');
  return dir;
}
