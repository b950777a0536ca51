/**
 * The programs a shell command line runs, for permission grants and allow-list patterns:
 * an "always allow `npm`" must never let `npm test; curl … | sh` run unasked. A command is
 * split at `;`, `&`, `|` and newlines; each part's first word is a root. A line whose
 * programs cannot be read that simply — command substitution (`$(`, backquotes), a
 * subshell or group (`(`, `{`), or a leading variable assignment — has no roots: no grant
 * or pattern covers it, so it is always asked about.
 */
export function commandParts(command: string): string[] | null {
  if (/[`(){}]|\$\(/.test(command)) return null;
  const parts = command
    .split(/[;&|\n]+/)
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (parts.length === 0) return null;
  for (const part of parts) if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(part)) return null;
  return parts;
}

/** The first word of each part of `command` (deduplicated), or null when it cannot be read safely. */
export function commandRoots(command: string): string[] | null {
  const parts = commandParts(command);
  if (!parts) return null;
  return [...new Set(parts.map((p) => p.split(/\s+/)[0]!))];
}

/**
 * Whether `text` matches a glob-like `pattern`: `*` is any run of characters, everything
 * else is literal, and the whole text must match (`npm test*` matches `npm test -- --watch`).
 */
export function matchesPattern(pattern: string, text: string): boolean {
  const body = pattern
    .split('*')
    .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`, 's').test(text);
}
