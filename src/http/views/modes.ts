import type { ApprovalMode } from '../../sessions/approval.js';

/** `SessionState.modes`: the current approval mode and every mode a client may pick. */
export interface ModesState {
  readonly currentModeId: ApprovalMode;
  readonly availableModes: readonly { readonly id: ApprovalMode; readonly name: string; readonly description: string }[];
}

export function modesState(current: ApprovalMode): ModesState {
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
