import type { AllowRule, WorkspaceSettings } from '../config/workspace-settings.js';
import type { Workspace } from '../workspace/types.js';
import { commandParts, matchesPattern } from './command-roots.js';

/** The allow rules config.json gives a workspace (`workspaces.<root or id>.allow`). */
export function allowRulesFor(settings: Readonly<Record<string, WorkspaceSettings>>, workspace: Workspace): readonly AllowRule[] {
  const key = Object.keys(settings).find((k) => k === workspace.id || (workspace.kind === 'local' && k === workspace.root));
  return key === undefined ? [] : (settings[key]!.allow ?? []);
}

/** The argument a rule's pattern is matched against. */
function subjectOf(args: Record<string, unknown>): string | undefined {
  for (const key of ['command', 'path', 'text']) if (typeof args[key] === 'string') return args[key] as string;
  return undefined;
}

/**
 * The reason a call runs without asking, or undefined. A command line is allowed only when
 * each of its parts matches a rule (so `npm test*` never covers `npm test; rm -rf ~`), and
 * never when its programs cannot be read safely (command substitution, subshells).
 */
export function allowedByRule(rules: readonly AllowRule[], tool: string, args: Record<string, unknown>): string | undefined {
  const mine = rules.filter((r) => r.tool === tool);
  const subject = subjectOf(args);
  if (mine.length === 0 || subject === undefined) return undefined;
  const parts = tool === 'workspace_exec' ? commandParts(subject) : [subject];
  if (!parts) return undefined;
  const used: string[] = [];
  for (const part of parts) {
    const rule = mine.find((r) => matchesPattern(r.pattern, part));
    if (!rule) return undefined;
    if (!used.includes(rule.pattern)) used.push(rule.pattern);
  }
  return `allowed by the workspace allow-list in config.json: ${tool} ${used.map((p) => `"${p}"`).join(', ')}`;
}
