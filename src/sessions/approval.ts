import { BerthError } from '../protocol/errors/index.js';
import type { Policy } from '../tools/types.js';

/**
 * Approval modes (docs/client-api.md §5.1, qwen's names) mapped onto the tool guard and onto
 * when a person is asked. Berth's `default` asks before every write and
 * critical call — safer than qwen's `auto` default, which runs edits unasked.
 *
 * | mode      | guard (max policy) | asks before            |
 * | plan      | read               | nothing (nothing runs) |
 * | default   | critical           | write and critical     |
 * | auto-edit | critical           | critical               |
 * | auto      | critical           | critical (alias of auto-edit: Berth has no classifier) |
 * | yolo      | critical           | nothing                |
 */
export type ApprovalMode = 'plan' | 'default' | 'auto-edit' | 'auto' | 'yolo';
export const APPROVAL_MODES: readonly ApprovalMode[] = ['plan', 'default', 'auto-edit', 'auto', 'yolo'];
export const DEFAULT_APPROVAL_MODE: ApprovalMode = 'default';

export function parseApprovalMode(value: unknown): ApprovalMode {
  if (typeof value === 'string' && (APPROVAL_MODES as readonly string[]).includes(value)) return value as ApprovalMode;
  throw new BerthError('invalid_approval_mode', '`approvalMode` must be a known approval mode when provided', {
    allowed: APPROVAL_MODES,
  });
}

export function guardFor(mode: ApprovalMode): Policy {
  return mode === 'plan' ? 'read' : 'critical';
}

/** Whether a call of this policy must wait for a person under this mode. */
export function mustAsk(mode: ApprovalMode, policy: Policy): boolean {
  switch (mode) {
    case 'plan':
    case 'yolo':
      return false;
    case 'default':
      return policy !== 'read';
    case 'auto-edit':
    case 'auto':
      return policy === 'critical';
  }
}

/** The approval mode a restore asks for, or the stored one (the default when the stored one is unknown). */
export function approvalFor(stored: string, requested: string | undefined): ApprovalMode {
  if (requested !== undefined) return parseApprovalMode(requested);
  try {
    return parseApprovalMode(stored);
  } catch {
    return DEFAULT_APPROVAL_MODE;
  }
}
