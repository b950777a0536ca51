import { posix } from 'node:path';
import picomatch from 'picomatch';
import { MAX_GLOB_PATTERN_CHARS } from './limits.js';
import { BerthError } from '../protocol/errors/index.js';
import { linearRegExp } from '../protocol/tools/safe-regexp.js';
import { segmentMatcher } from './glob-segments.js';

/** A validated glob pattern, ready for a walk (docs/client-api.md §11.6). */
export interface GlobPlan {
  /** Tests a path relative to the glob's cwd. Dot files match like any other (as qwen's glob does). */
  readonly matches: (relToCwd: string) => boolean;
  /** The literal directory prefix of the pattern ('' when none), where the walk may start. */
  readonly base: string;
  /** How many levels below `base` a match can lie (Infinity with `**`, braces or extglobs). */
  readonly maxDepth: number;
}

const refuse = (message: string): BerthError => new BerthError('parse_error', message);

/**
 * Checks a client's pattern and plans the walk. Refused (400 `parse_error`):
 * absolute or drive/UNC patterns and `..` segments — a glob only ever looks
 * below its cwd — NULs, and patterns over MAX_GLOB_PATTERN_CHARS.
 */
export function planGlob(input: string): GlobPlan {
  if (input.length === 0) throw refuse('pattern query parameter is required');
  if (input.length > MAX_GLOB_PATTERN_CHARS) throw refuse(`glob pattern is longer than ${MAX_GLOB_PATTERN_CHARS} characters`);
  if (input.includes('\0')) throw refuse('glob pattern may not contain NUL');
  if (/^([/\\]|[A-Za-z]:)/.test(input)) throw refuse(`glob patterns are relative to cwd; absolute patterns are refused: ${input}`);
  if (input.split(/[/\\]/).includes('..')) throw refuse(`glob pattern may not contain '..' segments: ${input}`);
  let pattern = input;
  while (pattern.startsWith('./')) pattern = pattern.slice(2);
  const matches = segmentMatcher(pattern) ?? linearMatcher(pattern);
  const scan = picomatch.scan(pattern, { parts: true });
  const parts = scan.parts ?? pattern.split('/');
  // A base with escapes, or from a negated pattern, is not a plain directory path: walk from cwd.
  let base = scan.negated || scan.base.includes('\\') ? '' : scan.base;
  if (!scan.isGlob && base !== '') base = posix.dirname(base) === '.' ? '' : posix.dirname(base);
  const baseDepth = base === '' ? 0 : base.split('/').length;
  const unbounded = scan.negated || scan.isGlobstar || scan.isBrace || scan.isExtglob || /[{(]/.test(scan.glob);
  return { matches, base, maxDepth: unbounded ? Infinity : Math.max(1, parts.length - baseDepth) };
}

/**
 * picomatch's lookarounds that only keep `*` from matching an empty, `.` or
 * `..` segment. A walk never offers such a segment (its paths are relative,
 * normalised and non-empty), so dropping them changes no answer; whatever
 * lookaround is left (an extglob negation such as `!(x)`) makes the pattern
 * one the linear engine refuses.
 */
const SEGMENT_GUARDS = ['(?!(?:^|\\/)\\.{1,2}(?:\\/|$))', '(?!\\.{1,2}(?:\\/|$))', '(?=.)'];

/**
 * The pattern's matcher on the linear-time engine: picomatch's regular
 * expression, which V8 would run by backtracking (`*a*a*a*a*a*a*a*a*b` against
 * a long name took minutes), run by RE2JS instead.
 */
export function linearMatcher(pattern: string): (p: string) => boolean {
  let source: string;
  let flags: string;
  try {
    const re = picomatch.makeRe(pattern, { dot: true });
    source = re.source;
    flags = re.flags;
  } catch (err) {
    throw refuse(`invalid glob pattern: ${(err as Error).message}`);
  }
  for (const guard of SEGMENT_GUARDS) source = source.split(guard).join('');
  try {
    const re = linearRegExp(source, flags);
    return (p) => re.test(p);
  } catch {
    throw refuse(`glob pattern ${pattern} uses a form (such as an extglob negation) that cannot be matched in linear time`);
  }
}
