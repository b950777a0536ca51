import type { PublishInput } from '../events/types.js';
import { allowRulesFor } from './allow-list.js';
import { mustAsk } from './approval.js';
import { MemoryGrantRepository, SessionGrants } from './grants.js';
import { runWorkspaceOf } from './run-workspace.js';
import type { Session } from './session.js';
import type { SessionServices } from './session-services.js';
import type { CommandTarget } from './slash-commands.js';
import type { TurnPorts } from './turn.js';
import type { UsageMeter } from './usage.js';

/** What only the session holds privately and its turns still need. */
export interface SessionOwnParts {
  readonly usage: UsageMeter;
  readonly publish: (input: PublishInput) => void;
  readonly settle: TurnPorts['settle'];
  readonly started: () => void;
}

/** The explicit ports a session's turns (and tool calls from outside a turn) run on (sessions/turn.ts). */
export function turnPortsOf(session: Session & CommandTarget, services: SessionServices, own: SessionOwnParts): TurnPorts {
  const { clock, log, driver, tools, prompts, config } = services;
  return {
    sessionId: session.id,
    clock,
    log,
    driver,
    tools,
    prompts,
    interactions: session.interactions,
    runWorkspace: runWorkspaceOf(session.init),
    usage: own.usage,
    ...(driver.harness === 'built-in' ? { commands: session } : {}),
    guard: () => session.guard,
    mustAsk: (policy) => mustAsk(session.approvalMode, policy),
    grants: new SessionGrants(services.grants ?? new MemoryGrantRepository(), session.id, session.workspace.id, clock),
    allowRules: allowRulesFor(config.workspaceSettings, session.workspace),
    publish: own.publish,
    settle: own.settle,
    started: own.started,
    midTurn: session.midTurn,
  };
}
