import type { Dirent } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../clock.js';
import { DEFAULT_GLOB_RESULTS, GLOB_READDIR_CONCURRENCY, MAX_GLOB_VISITED_ENTRIES } from './limits.js';
import { BerthError } from '../protocol/errors/index.js';
import { loadIgnoreRules, type IgnoreRules } from './ignore.js';
import { planGlob, type GlobPlan } from './glob-pattern.js';
import { confine } from './paths.js';

export interface GlobOptions {
  readonly pattern: string;
  /** A directory the pattern is relative to, resolved like a path (docs/client-api.md §11.6). */
  readonly cwd?: string;
  readonly maxResults?: number;
  readonly includeIgnored: boolean;
  /** Stops the walk early (the client went away); the partial answer is marked truncated. */
  readonly signal?: AbortSignal;
}

/** The `WorkspaceGlob` answer (contract/openapi.json), in wire field order. */
export interface GlobResult {
  readonly kind: 'glob';
  readonly pattern: string;
  readonly cwd: string;
  readonly matches: string[];
  readonly count: number;
  readonly truncated: boolean;
  readonly durationMs: number;
}

/** A directory waiting to be read. */
interface DirTask {
  /** Workspace-relative ('' for the root). */
  readonly rel: string;
  /** Relative to the glob's cwd ('' for cwd itself): what the pattern is tested against. */
  readonly fromCwd: string;
  /** Depth of this directory's entries below the walk's start (1 = direct children). */
  readonly depth: number;
  /** Inside an ignored directory (walked only with includeIgnored). */
  readonly ignored: boolean;
}

const joinRel = (a: string, b: string): string => (a === '' ? b : b === '' ? a : `${a}/${b}`);
const byName = (a: Dirent, b: Dirent): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
const IGNORE_FILES = new Set(['.gitignore', '.berthignore']);

/**
 * Matches a glob below a workspace directory (docs/client-api.md §11.6). The walk is
 * breadth-first with entries in name order, reads a few directories ahead,
 * starts at the pattern's literal prefix, stops at the pattern's depth and at
 * maxResults (+1, to know whether to say `truncated`), never enters `.git`,
 * ignored directories (unless includeIgnored) or symlinked directories — so
 * it cannot be led out of the workspace — and returns workspace-relative
 * paths.
 */
export async function globWorkspace(root: string, options: GlobOptions, clock: Clock): Promise<GlobResult> {
  const started = clock.now();
  const plan = planGlob(options.pattern);
  const maxResults = options.maxResults ?? DEFAULT_GLOB_RESULTS;
  const cwdRel = await resolveCwd(root, options.cwd);
  const rules = await loadIgnoreRules(root);
  const { matches, truncated } = await walk(root, cwdRel, plan, rules, maxResults, options);
  return {
    kind: 'glob',
    pattern: options.pattern,
    cwd: options.cwd ?? '',
    matches,
    count: matches.length,
    truncated,
    durationMs: Math.max(0, Math.round(clock.now() - started)),
  };
}

async function resolveCwd(root: string, cwd: string | undefined): Promise<string> {
  if (cwd === undefined) return '';
  const target = await confine(root, cwd);
  if (!(await lstat(target.abs)).isDirectory()) throw new BerthError('parse_error', `cwd is not a directory: ${target.rel}`);
  return target.rel === '.' ? '' : target.rel;
}

/**
 * Where the walk starts: the pattern's literal prefix below cwd, if it is a
 * real directory reached without links. Undefined when nothing can match.
 */
async function startOf(root: string, cwdRel: string, plan: GlobPlan, rules: IgnoreRules, includeIgnored: boolean) {
  const rel = joinRel(cwdRel, plan.base);
  if (plan.base !== '') {
    try {
      const target = await confine(root, rel);
      // A link on the way would be followed; the walk never follows links.
      if (target.rel !== rel || !(await lstat(target.abs)).isDirectory()) return undefined;
    } catch {
      return undefined;
    }
  }
  await rules.prepare(rel);
  const ignored = rel !== '' && rules.match(rel, true) !== null;
  if (ignored && !includeIgnored) return undefined;
  return { rel, fromCwd: plan.base, depth: 1, ignored } satisfies DirTask;
}

async function walk(
  root: string,
  cwdRel: string,
  plan: GlobPlan,
  rules: IgnoreRules,
  maxResults: number,
  options: GlobOptions,
): Promise<{ matches: string[]; truncated: boolean }> {
  const matches: string[] = [];
  const start = await startOf(root, cwdRel, plan, rules, options.includeIgnored);
  if (!start) return { matches, truncated: false };
  // `src/**` matches `src` itself.
  if (start.fromCwd !== '' && plan.matches(start.fromCwd)) matches.push(start.rel);

  const queue: (DirTask | undefined)[] = [start];
  const reads: (Promise<Dirent[] | null> | undefined)[] = [];
  let visited = 0;
  for (let head = 0; head < queue.length; head++) {
    // Read ahead, but consume in queue order so the answer is deterministic.
    for (let i = head; i < queue.length && i < head + GLOB_READDIR_CONCURRENCY; i++) {
      if (reads[i] !== undefined) continue;
      const listing = readdir(join(root, queue[i]!.rel), { withFileTypes: true });
      // The start directory's refusal is the answer (403, 503…); a subdirectory that vanishes
      // or is unreadable mid-walk is skipped, not fatal.
      reads[i] = i === 0 ? listing : listing.catch(() => null);
    }
    const dirents = await reads[head];
    const task = queue[head]!;
    reads[head] = undefined;
    queue[head] = undefined;
    if (options.signal?.aborted) return { matches, truncated: true };
    if (!dirents) continue;
    visited += dirents.length;
    dirents.sort(byName);
    let isIgnored: (name: string, isDirectory: boolean) => boolean = () => true;
    if (!task.ignored) {
      const present = new Set(dirents.filter((d) => IGNORE_FILES.has(d.name)).map((d) => d.name));
      await rules.prepareListed(task.rel, present);
      isIgnored = rules.entryTester(task.rel);
    }
    for (const d of dirents) {
      if (d.name === '.git') continue;
      const isDirectory = d.isDirectory();
      const ignored = isIgnored(d.name, isDirectory);
      if (ignored && !options.includeIgnored) continue;
      const fromCwd = joinRel(task.fromCwd, d.name);
      if (plan.matches(fromCwd)) {
        if (matches.length === maxResults) return { matches, truncated: true };
        matches.push(joinRel(cwdRel, fromCwd));
      }
      if (isDirectory && task.depth < plan.maxDepth) {
        queue.push({ rel: joinRel(task.rel, d.name), fromCwd, depth: task.depth + 1, ignored });
      }
    }
    if (visited >= MAX_GLOB_VISITED_ENTRIES) return { matches, truncated: true };
  }
  return { matches, truncated: false };
}
