import { RE2JS } from 're2js';
import { BerthError } from '../errors/index.js';

/**
 * Regular expressions that come from outside (application schemas' `pattern`,
 * `/glob` patterns) run on RE2JS, a pure-JavaScript port of RE2: matching takes
 * time linear in the input whatever the pattern, so `^(a+)+$` cannot stall the
 * daemon. Patterns RE2 cannot run in linear time (backreferences,
 * lookaround) are refused at compile time instead of being run by a
 * backtracking engine. A pure-JS engine was chosen over the `re2` native addon
 * so that installing Berth compiles nothing.
 */
export interface RegExpLike {
  test(input: string): boolean;
  /** The pattern and flags, as a RegExp prints them. */
  toString(): string;
}

/** Compiles `pattern` for the linear-time engine; throws `invalid_request` for one it cannot run. */
export function linearRegExp(pattern: string, flags = ''): RegExpLike {
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern, flags.includes('i') ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (err) {
    throw new BerthError('invalid_request', `The pattern ${JSON.stringify(pattern.slice(0, 80))} cannot be run in linear time: ${(err as Error).message}`);
  }
  // Ajv keys the compiled patterns of one schema by `String(regExp)`: without a
  // key of its own, every pattern after the first would test with the first.
  return { test: (input: string) => re.matcher(input).find(), toString: () => `/${pattern}/${flags}` };
}

/** Ajv's `code.regExp` hook has this shape (pattern, flags) and reads `.test`. */
export const ajvLinearRegExp = Object.assign((pattern: string, flags: string) => linearRegExp(pattern, flags), {
  code: 'linearRegExp',
});
