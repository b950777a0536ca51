import { BerthError } from '../protocol/errors/index.js';
import type { Policy } from '../tools/types.js';

/**
 * Approval modes (spec §5.1, qwen's names) mapped onto the tool guard and onto
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

/** `SessionState.modes` (spec §5.9): the current mode and every mode a client may pick. */
export function modesState(current: ApprovalMode): Record<string, unknown> {
  return {
    currentModeId: current,
    availableModes: [
      { id: 'plan', name: 'Plan', description: 'Read only: tools that write or run commands are hidden and refused' },
      { id: 'default', name: 'Default', description: 'Ask before every file change and every command' },
      { id: 'auto-edit', name: 'Auto Edit', description: 'File edits run unasked; commands and deletions ask first' },
      { id: 'auto', name: 'Auto', description: 'Same as Auto Edit (kept for qwen clients)' },
      { id: 'yolo', name: 'YOLO', description: 'Every tool runs without asking' },
    ],
  };
}
