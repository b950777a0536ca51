/**
 * Rewrites the lines of one ignore file so they can be evaluated from the
 * workspace root.
 *
 * git reads a `.gitignore` relative to the directory that holds it
 * (gitignore(5), "PATTERN FORMAT"): a pattern with a slash at its start or in
 * its middle is anchored to that directory, any other pattern matches at any
 * depth below it. Prefixing each pattern with its directory (`dir/<p>` when
 * anchored, `dir/**\/<p>` otherwise) keeps exactly that meaning, so the
 * patterns of every file on the way to a path can live in one matcher, deeper
 * files after shallower ones — and "the last matching pattern decides" then
 * gives deeper files the precedence git gives them.
 */

/** Characters that have a meaning in a pattern and must be taken literally in a directory prefix. */
const GLOB_SPECIAL = /[\\*?[\]]/g;

/** A directory path written as a literal pattern prefix. */
function literalPrefix(dirRel: string): string {
  const escaped = dirRel.replace(GLOB_SPECIAL, (c) => `\\${c}`);
  // A leading `#` would turn the line into a comment and a leading `!` into a negation.
  return escaped.startsWith('#') || escaped.startsWith('!') ? `\\${escaped}` : escaped;
}

/** The pattern lines of an ignore file: blank lines and comments dropped, CRLF tolerated. */
export function patternLines(text: string): string[] {
  const out: string[] = [];
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  for (const raw of body.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '' || line.startsWith('#')) continue;
    out.push(line);
  }
  return out;
}

/**
 * One pattern of the ignore file in `dirRel` ('' for the root), rewritten
 * relative to the root. Returns undefined for a line that can match nothing
 * (a bare `/` or `!`).
 */
export function scopePattern(dirRel: string, line: string): string | undefined {
  const negated = line.startsWith('!');
  let body = negated ? line.slice(1) : line;
  const core = body.endsWith('/') ? body.slice(0, -1) : body;
  if (core === '' || core === '/') return undefined;
  if (dirRel === '') return line;
  const anchored = core.includes('/');
  if (body.startsWith('/')) body = body.slice(1);
  const scoped = `${literalPrefix(dirRel)}/${anchored ? '' : '**/'}${body}`;
  return negated ? `!${scoped}` : scoped;
}

/** Every usable pattern of an ignore file found in `dirRel`. */
export function scopedPatterns(dirRel: string, text: string): string[] {
  const out: string[] = [];
  for (const line of patternLines(text)) {
    const p = scopePattern(dirRel, line);
    if (p !== undefined) out.push(p);
  }
  return out;
}
