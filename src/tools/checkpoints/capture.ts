import type { Clock } from '../../clock.js';
import type { PermissionHook } from '../permission.js';
import type { SessionToolAccess } from '../service.js';
import type { ToolOutcome } from '../types.js';
import { FILE_EFFECT_TOOLS, readFileState } from './file-state.js';
import type { CheckpointBook } from './records.js';

/**
 * A session's tool access that keeps a checkpoint before every file effect (docs/client-api.md
 * §5.13): once a write, patch or delete has been allowed — after its permission, right before
 * it runs — the file's prior content (or its absence) is read through the session's own
 * `workspace_read` and kept in the book; when the call settles, what it left is recorded
 * too, so a rewind can tell whether someone changed the file since. The built-in agent, an
 * external agent's `fs/*` writes and a remote workspace's tools all pass here, since every
 * session call does. A call that did nothing (refused, failed, replayed from its receipt)
 * leaves no checkpoint.
 */
export function withCheckpoints(
  access: SessionToolAccess,
  book: CheckpointBook,
  turnOf: () => string | undefined,
  clock: Clock,
): SessionToolAccess {
  return {
    definitions: (guard) => access.definitions(guard),
    async run(call, options) {
      let effect: { id: number; tool: string } | undefined;
      const permission: PermissionHook = async (ask) => {
        const decision = await options.permission(ask);
        if (decision.allow && effect === undefined && FILE_EFFECT_TOOLS.has(ask.tool.name) && typeof ask.args.path === 'string') {
          const prior = await readFileState(access, ask.args.path, options.signal);
          const id = await book.before(turnOf() ?? null, call.toolCallId, prior.path, prior.state, clock.now());
          effect = { id, tool: ask.tool.name };
        }
        return decision;
      };
      let outcome: ToolOutcome | undefined;
      try {
        outcome = await access.run(call, { ...options, permission });
        return outcome;
      } finally {
        if (effect) await book.settle(effect.id, afterOf(effect.tool, outcome));
      }
    },
  };
}

/** What a settled file call left, or null when it had no effect. */
function afterOf(tool: string, outcome: ToolOutcome | undefined): { kind: 'file'; sha256: string } | { kind: 'absent' } | null {
  if (!outcome?.ok || outcome.replayed) return null;
  if (tool === 'workspace_delete') return { kind: 'absent' };
  const sha256 = ((outcome.result.value ?? {}) as Record<string, unknown>).sha256;
  return { kind: 'file', sha256: typeof sha256 === 'string' ? sha256 : '' };
}
