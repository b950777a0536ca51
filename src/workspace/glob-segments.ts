/**
 * A matcher for the globs people type most (`**\/*.ts`, `src/**`, `*.{ts,js}`): literal
 * characters, `*` within a segment, `**` as a whole segment and plain brace alternatives. It
 * gives picomatch's answer (with `dot: true`) for these forms, by walking path segments rather
 * than running a regular expression: the linear-time regex engine costs ~20 µs per tested path, which made
 * it most of a glob's time on a 10,000-file tree. Both levels use one two-pointer
 * wildcard match (retry from the last star), so the work is bounded by pattern × path length
 * whatever the input. Any other syntax is left to the regex engine.
 */

/** Characters with a meaning in picomatch beyond `*` and `/`: a pattern holding one is not ours. */
const OTHER_SYNTAX = /[?[\]{}()!+@\\^$|,]/;

/** A brace group of plain alternatives (`{ts,js}`): no nesting, no ranges, no empty alternative. */
const BRACES = /\{([^{}]*)\}/;
/** More alternatives than this go to the regex engine rather than being tried one by one. */
const MAX_ALTERNATIVES = 32;

/** A matcher for `pattern` (relative, `./` already stripped), or undefined when it uses other syntax. */
export function segmentMatcher(pattern: string): ((path: string) => boolean) | undefined {
  if (!pattern.includes('{')) return plainMatcher(pattern);
  const alternatives = expandBraces(pattern);
  const matchers = alternatives?.map(plainMatcher);
  if (!matchers || matchers.some((m) => m === undefined)) return undefined;
  return (path) => matchers.some((m) => m!(path));
}

/** `a.{ts,js}` → [`a.ts`, `a.js`]; undefined for a group this matcher does not take. */
function expandBraces(pattern: string): string[] | undefined {
  const group = BRACES.exec(pattern);
  if (!group) return pattern.includes('}') ? undefined : [pattern];
  const items = group[1]!.split(',');
  // An all-star alternative lets picomatch match an empty segment (`a/**/{*,b}` matches `a`): not ours.
  if (items.length < 2 || items.some((i) => i === '' || i.includes('..') || /^\*+$/.test(i))) return undefined;
  const out: string[] = [];
  for (const item of items) {
    const rest = expandBraces(pattern.slice(0, group.index) + item + pattern.slice(group.index + group[0].length));
    if (!rest || out.length + rest.length > MAX_ALTERNATIVES) return undefined;
    out.push(...rest);
  }
  return out;
}

function plainMatcher(pattern: string): ((path: string) => boolean) | undefined {
  if (OTHER_SYNTAX.test(pattern)) return undefined;
  const segments = pattern.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..' || (s.includes('**') && s !== '**'))) return undefined;
  // picomatch lets `dir/**` match `dir` itself only when `dir` is literal (`*/**` does not match `a`):
  // rather than mirror each such rule, a `**` after a starred segment goes to the regex engine.
  if (segments.some((s, i) => s === '**' && i > 0 && segments[i - 1] !== '**' && segments[i - 1]!.includes('*'))) return undefined;
  // `**/NAME` (the commonest form) looks at the last segment only, without splitting the path.
  if (segments.length === 2 && segments[0] === '**' && segments[1] !== '**') {
    const last = segments[1]!;
    return (path) => nameMatches(last, path.slice(path.lastIndexOf('/') + 1));
  }
  return (path) => pathMatches(segments, path.split('/'));
}

/** Pattern segments against path segments; `**` stands for any number of whole segments. */
function pathMatches(segments: readonly string[], parts: readonly string[]): boolean {
  return starMatch(segments.length, parts.length, (s) => segments[s] === '**', (s, p) => nameMatches(segments[s]!, parts[p]!));
}

/** One segment's pattern (literals and `*`) against one name. */
function nameMatches(pattern: string, name: string): boolean {
  return starMatch(pattern.length, name.length, (i) => pattern[i] === '*', (i, n) => pattern[i] === name[n]);
}

/**
 * The two-pointer wildcard match both levels share: pattern items are stars
 * (any run of subject items, none included) or match one subject item; on a
 * mismatch the last star takes one more item. At most pattern × subject steps.
 */
function starMatch(patternLength: number, subjectLength: number, isStar: (i: number) => boolean, matches: (i: number, n: number) => boolean): boolean {
  let i = 0;
  let n = 0;
  let star = -1;
  let resume = 0;
  while (n < subjectLength) {
    if (i < patternLength && isStar(i)) {
      star = i++;
      resume = n;
    } else if (i < patternLength && matches(i, n)) {
      i++;
      n++;
    } else if (star !== -1) {
      i = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (i < patternLength && isStar(i)) i++;
  return i === patternLength;
}
