import type { PermissionOption } from './interactions.js';
import { commandRoots } from './command-roots.js';

/**
 * Which permission options a call is offered, and what each "always" grants
 * (docs/client-api.md §9.6). The option ids are qwen's, per kind of call, so a
 * client that labels an option by its id (the qwen Web Shell shows
 * `proceed_always` as "Allow All Edits") shows what it really grants:
 *
 * - an edit (`workspace_write`, `workspace_patch`): `proceed_always` = every
 *   edit of this session;
 * - a command (`workspace_exec`): `proceed_always_project` /
 *   `proceed_always_user` = commands with the same root program(s), in this
 *   workspace / in every workspace of this daemon; a command line whose roots
 *   cannot be read safely gets no "always";
 * - any other call: `proceed_always_project` / `proceed_always_user` = that tool.
 *
 * `reject_always` (Berth's) refuses the tool for the rest of the session.
 */

export type GrantScope = 'session' | 'workspace' | 'user';

/** What choosing an option records: allow or reject `keys` (every one must be granted to cover a call). */
export interface Grant {
  readonly scope: GrantScope;
  readonly keys: readonly string[];
  readonly choice: 'allow' | 'reject';
  /** Said in the decision's reason when the grant lets a later call run. */
  readonly label: string;
}

export interface CallOptions {
  readonly options: readonly PermissionOption[];
  /** The grant each "always" option records, by option id. */
  readonly grants: ReadonlyMap<string, Grant>;
  /** The keys a grant must hold for this call to run unasked. */
  readonly keys: readonly string[] | null;
}

const ONCE: PermissionOption = { optionId: 'proceed_once', name: 'Allow', kind: 'allow_once' };
const CANCEL: PermissionOption = { optionId: 'cancel', name: 'Reject', kind: 'reject_once' };

const EDIT_TOOLS = new Set(['workspace_write', 'workspace_patch']);
export const EDIT_KEY = 'edit';
export const rejectKey = (tool: string): string => `reject:${tool}`;

/** The options for one call of `tool` with `args`. */
export function optionsFor(tool: string, args: Record<string, unknown>): CallOptions {
  const rejectAlways: PermissionOption = { optionId: 'reject_always', name: `Reject ${tool} for this session`, kind: 'reject_always' };
  const reject: Grant = { scope: 'session', keys: [rejectKey(tool)], choice: 'reject', label: `${tool} rejected for this session` };
  if (EDIT_TOOLS.has(tool)) {
    const all: Grant = { scope: 'session', keys: [EDIT_KEY], choice: 'allow', label: 'all edits allowed for this session' };
    return {
      options: [ONCE, { optionId: 'proceed_always', name: 'Allow All Edits', kind: 'allow_always' }, CANCEL, rejectAlways],
      grants: new Map([['proceed_always', all], ['reject_always', reject]]),
      keys: [EDIT_KEY],
    };
  }
  let keys: string[] | null = [`tool:${tool}`];
  let what = tool;
  if (tool === 'workspace_exec') {
    const roots = typeof args.command === 'string' ? commandRoots(args.command) : null;
    keys = roots ? roots.map((r) => `exec:${r}`) : null;
    what = roots ? roots.join(', ') : 'command';
  }
  if (keys === null) return { options: [ONCE, CANCEL, rejectAlways], grants: new Map([['reject_always', reject]]), keys: null };
  const project: Grant = { scope: 'workspace', keys, choice: 'allow', label: `${what} always allowed in this workspace` };
  const user: Grant = { scope: 'user', keys, choice: 'allow', label: `${what} always allowed for this user` };
  return {
    options: [
      ONCE,
      { optionId: 'proceed_always_project', name: `Always Allow in project: ${what}`, kind: 'allow_always' },
      { optionId: 'proceed_always_user', name: `Always Allow for user: ${what}`, kind: 'allow_always' },
      CANCEL,
      rejectAlways,
    ],
    grants: new Map([['proceed_always_project', project], ['proceed_always_user', user], ['reject_always', reject]]),
    keys,
  };
}
