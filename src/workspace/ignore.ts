import { lstatSync, readFileSync, type Stats } from 'node:fs';
import { lstat, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { IGNORE_MATCHER_TEST_BUDGET, MAX_IGNORE_FILE_BYTES, MAX_IGNORE_ROOTS } from './limits.js';
import { scopedPatterns } from './ignore-patterns.js';

/**
 * The workspace ignore engine (docs/architecture.md, Core concepts: "ignore rules
 * (`.gitignore`, plus `.berthignore`) are honoured"; docs/client-api.md §11.1).
 *
 * Rules follow git: a `.gitignore` in any directory applies below it, deeper
 * files take precedence, `!` re-includes, nothing below an ignored directory
 * can be re-included, and the root's `.git/info/exclude` applies with the
 * lowest precedence. `.berthignore` files use the same syntax and sit above
 * the `.gitignore` of their directory. Any path segment named `.git` is
 * always ignored. Ignore files that are symlinks or larger than
 * MAX_IGNORE_FILE_BYTES are not read (git itself refuses symlinked ones).
 *
 * Rules are cached per root and per directory, keyed by the lstat identity
 * of the directory's ignore files, so a request pays a few `lstat`s, never a
 * walk. A snapshot (`loadIgnoreRules`) checks each directory at most once.
 */

export type IgnoreMatch = 'file' | 'directory' | null;

/** The entry names of a directory a caller has already read. */
export type Names = Pick<ReadonlySet<string>, 'has'>;

export interface IgnoreRules {
  /**
   * Whether `rel` (workspace-relative, `/` separators, `.` for the root) is
   * ignored: 'directory' when an ancestor directory is ignored (or `rel` is
   * itself an ignored directory), 'file' when a rule hits the file itself.
   * Directories on the way that this snapshot has not checked yet are checked
   * inline (a couple of lstats each); walkers call `prepareListed` instead.
   */
  match(rel: string, isDirectory: boolean): IgnoreMatch;
  /** Loads (or revalidates) the ignore files of `dirRel` and of every directory above it, once per snapshot. */
  prepare(dirRel: string): Promise<void>;
  /**
   * Like `prepare` for one directory whose entry names a walker already read:
   * absent ignore files then cost no system call.
   */
  prepareListed(dirRel: string, names: Names): Promise<void>;
  /**
   * For walkers: tests the entries directly inside `dirRel`, a prepared
   * directory known not to be ignored itself.
   */
  entryTester(dirRel: string): (name: string, isDirectory: boolean) => boolean;
}

/** Ignore files read in each directory, lowest precedence first. */
const DIR_SOURCES = ['.gitignore', '.berthignore'] as const;
const ROOT_SOURCES = ['.git/info/exclude', ...DIR_SOURCES] as const;
const NONE = '';
/** Directories one prepare() checks inline before going async (see prepare). */
const SYNC_CHECK_MAX_DIRS = 16;

const sourcesOf = (dirRel: string): readonly string[] => (dirRel === '' ? ROOT_SOURCES : DIR_SOURCES);

/** git matches case-sensitively unless the file system folds case (core.ignorecase). */
const IGNORE_CASE = process.platform === 'darwin' || process.platform === 'win32';

interface DirRules {
  /** lstat identity of the directory's ignore files; NONE when it has none. */
  readonly signature: string;
  /** Its patterns, rewritten relative to the root (ignore-patterns.ts). */
  readonly patterns: readonly string[];
}

interface Matcher {
  readonly ig: Ignore;
  /**
   * Listing verdicts by directory, then by entry name (`name/` for a
   * directory): `ignore` memoizes too, but joins, checks and normalizes every
   * path before its lookup, about half a microsecond a name (most of a
   * 1,500-entry listing). Bounded with `ig` by the test budget.
   */
  readonly verdicts: Map<string, Map<string, boolean>>;
  tests: number;
}

function signatureOf(stats: readonly (Stats | undefined)[]): string {
  if (stats.every((s) => s === undefined)) return NONE;
  return stats.map((s) => (s ? `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}` : '-')).join('|');
}

const usable = (s: Stats | undefined): Stats | undefined =>
  s && s.isFile() && s.size <= MAX_IGNORE_FILE_BYTES ? s : undefined;

function ancestorsOf(dirRel: string): string[] {
  if (dirRel === '' || dirRel === '.') return [''];
  const out = [''];
  let at = dirRel.indexOf('/');
  while (at !== -1) {
    out.push(dirRel.slice(0, at));
    at = dirRel.indexOf('/', at + 1);
  }
  out.push(dirRel);
  return out;
}

const parentOf = (rel: string): string => {
  const at = rel.lastIndexOf('/');
  return at === -1 ? '' : rel.slice(0, at);
};

/** What one root's ignore files say, shared by every snapshot of that root. */
class RootRules {
  private readonly dirs = new Map<string, DirRules>();
  private readonly matchers = new Map<string, Matcher>();

  constructor(readonly root: string) {}

  signature(dirRel: string): string {
    return this.dirs.get(dirRel)?.signature ?? NONE;
  }

  update(dirRel: string, signature: string, patterns: readonly string[]): void {
    if (signature === NONE) this.dirs.delete(dirRel);
    else this.dirs.set(dirRel, { signature, patterns });
    // Rare (an ignore file changed): recompile lazily.
    this.matchers.clear();
  }

  /** The nearest directory at or above `dirRel` that contributes patterns ('' when none does). */
  scopeOf(dirRel: string): string {
    let dir = dirRel === '.' ? '' : dirRel;
    for (;;) {
      if (this.dirs.get(dir)?.patterns.length) return dir;
      if (dir === '') return '';
      dir = parentOf(dir);
    }
  }

  matcher(scope: string): Matcher {
    const cached = this.matchers.get(scope);
    if (cached && cached.tests < IGNORE_MATCHER_TEST_BUDGET) return cached;
    // `ignore` memoizes every path it tests; recompiling after a budget bounds that memory.
    const ig = ignore({ ignoreCase: IGNORE_CASE, allowRelativePaths: true });
    for (const dir of ancestorsOf(scope)) {
      const rules = this.dirs.get(dir);
      if (rules) ig.add(rules.patterns as string[]);
    }
    const fresh = { ig, verdicts: new Map<string, Map<string, boolean>>(), tests: 0 };
    this.matchers.set(scope, fresh);
    return fresh;
  }
}

const roots = new Map<string, RootRules>();

function rootRules(root: string): RootRules {
  let rules = roots.get(root);
  if (rules) {
    roots.delete(root);
  } else {
    rules = new RootRules(root);
    if (roots.size >= MAX_IGNORE_ROOTS) roots.delete(roots.keys().next().value!);
  }
  roots.set(root, rules); // most recently used last
  return rules;
}

function decode(buffers: readonly (Buffer | undefined)[], dirRel: string): string[] {
  const patterns: string[] = [];
  for (const b of buffers) if (b) patterns.push(...scopedPatterns(dirRel, b.toString('utf8')));
  return patterns;
}

class IgnoreSnapshot implements IgnoreRules {
  private readonly checked = new Set<string>();
  private readonly pending = new Map<string, Promise<void>>();

  constructor(private readonly rules: RootRules) {}

  match(rel: string, isDirectory: boolean): IgnoreMatch {
    if (rel === '' || rel === '.') return null;
    const segments = rel.split('/');
    const gitAt = segments.indexOf('.git');
    if (gitAt !== -1) return gitAt < segments.length - 1 || isDirectory ? 'directory' : 'file';
    const parent = parentOf(rel);
    for (const dir of ancestorsOf(parent)) if (!this.checked.has(dir)) this.checkSync(dir);
    const m = this.rules.matcher(this.rules.scopeOf(parent));
    m.tests += 1;
    if (parent !== '' && m.ig.ignores(`${parent}/`)) return 'directory';
    if (m.ig.ignores(isDirectory ? `${rel}/` : rel)) return isDirectory ? 'directory' : 'file';
    return null;
  }

  async prepare(dirRel: string): Promise<void> {
    const unchecked = ancestorsOf(dirRel).filter((dir) => !this.checked.has(dir));
    // An lstat inline costs about 2 µs, through the thread pool about 17 µs (measured on the
    // 10,000-file bench fixture), and a read checks only the handful of directories above one
    // path: those go inline. A deeper chain goes async, so no request holds the loop for long.
    for (const dir of unchecked.slice(0, SYNC_CHECK_MAX_DIRS)) this.checkSync(dir);
    await Promise.all(unchecked.slice(SYNC_CHECK_MAX_DIRS).map((dir) => this.check(dir)));
  }

  async prepareListed(dirRel: string, names: Names): Promise<void> {
    const dir = dirRel === '.' ? '' : dirRel;
    if (this.checked.has(dir)) return;
    await this.check(dir, names);
  }

  entryTester(dirRel: string): (name: string, isDirectory: boolean) => boolean {
    const dir = dirRel === '.' ? '' : dirRel;
    const m = this.rules.matcher(this.rules.scopeOf(dir));
    const prefix = dir === '' ? '' : `${dir}/`;
    let known = m.verdicts.get(dir);
    if (!known) m.verdicts.set(dir, (known = new Map()));
    const verdicts = known;
    return (name, isDirectory) => {
      if (name === '.git') return true;
      const key = isDirectory ? `${name}/` : name;
      let verdict = verdicts.get(key);
      if (verdict === undefined) {
        m.tests += 1;
        verdict = m.ig.ignores(`${prefix}${key}`);
        verdicts.set(key, verdict);
      }
      return verdict;
    };
  }

  private check(dir: string, names?: Names): Promise<void> {
    if (this.checked.has(dir)) return Promise.resolve();
    let p = this.pending.get(dir);
    if (!p) {
      p = this.load(dir, names).finally(() => {
        this.checked.add(dir);
        this.pending.delete(dir);
      });
      this.pending.set(dir, p);
    }
    return p;
  }

  private async load(dir: string, names?: Names): Promise<void> {
    const base = join(this.rules.root, dir);
    const sources = sourcesOf(dir);
    const stats = await Promise.all(
      sources.map((s) =>
        names && !names.has(s.split('/')[0]!)
          ? undefined
          : lstat(join(base, s)).then(usable, () => undefined),
      ),
    );
    const signature = signatureOf(stats);
    if (signature === this.rules.signature(dir)) return;
    // Read after the stat: a change racing this read shows up as a new signature next time.
    const texts = await Promise.all(
      sources.map((s, i) => (stats[i] ? readFile(join(base, s)).catch(() => undefined) : undefined)),
    );
    this.rules.update(dir, signature, decode(texts, dir));
  }

  /** Checks `dir` on this thread; with `names` (its entries, just read) an ignore file absent from them costs no lstat. */
  checkSync(dir: string, names?: Names): void {
    const base = join(this.rules.root, dir);
    const sources = sourcesOf(dir);
    const stats = sources.map((s) => {
      if (names && !names.has(s.split('/')[0]!)) return undefined;
      try {
        return usable(lstatSync(join(base, s), { throwIfNoEntry: false }));
      } catch {
        return undefined;
      }
    });
    const signature = signatureOf(stats);
    if (signature !== this.rules.signature(dir)) {
      const texts = sources.map((s, i) => {
        if (!stats[i]) return undefined;
        try {
          return readFileSync(join(base, s));
        } catch {
          return undefined;
        }
      });
      this.rules.update(dir, signature, decode(texts, dir));
    }
    this.checked.add(dir);
  }
}

/**
 * The ignore rules of a workspace root (a canonical, realpath'd root), as of
 * now. Cheap: the root's ignore files are revalidated by lstat; deeper
 * directories are checked when first needed. `listed` is a directory whose entry
 * names the caller has just read: it is prepared too, and its own ignore files cost
 * an lstat only when they are among those names.
 */
export async function loadIgnoreRules(root: string, listed?: { dirRel: string; names: Names }): Promise<IgnoreRules> {
  const snapshot = new IgnoreSnapshot(rootRules(root));
  if (listed) snapshot.checkSync(listed.dirRel, listed.names);
  await snapshot.prepare(listed?.dirRel ?? '');
  return snapshot;
}

