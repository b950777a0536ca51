import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { Workspace } from '../workspace/types.js';
import type { AgentCatalog } from './acp/catalog.js';
import { createBuiltinDriver } from './builtin/index.js';
import type { AgentDriver } from './driver.js';
import type { ModelServices } from './models/index.js';

/** What a session asks for: a model service (absent: the default one) and the model a restored session had. */
export interface DriverRequest {
  readonly modelServiceId?: string;
  readonly modelId?: string | null;
}

export interface DriverResult {
  readonly driver: AgentDriver;
  /** Present when a model service was requested: whether it could be applied. */
  readonly modelApplied?: boolean;
  readonly modelError?: string;
}

export interface DriverFactoryDeps {
  readonly services: ModelServices;
  readonly maxTurnIterations: number;
  readonly clock: Clock;
  readonly log: Logger;
}

/**
 * Builds the agent driver of one session, with the fallback rules of the client API
 * (docs/client-api.md, creating a session): an unusable `modelServiceId` fails softly
 * and the session starts on the default service, saying why; a restored session gets
 * its recorded model back when that model is still offered, and keeps the default otherwise.
 */
export function builtinDriverFactory(deps: DriverFactoryDeps): (request: DriverRequest) => Promise<DriverResult> {
  const base = { services: deps.services, maxTurnIterations: deps.maxTurnIterations, clock: deps.clock };
  return async ({ modelServiceId, modelId }) => {
    if (modelServiceId === undefined) {
      const driver = await createBuiltinDriver(base);
      if (modelId) await driver.setModel(modelId).catch((err: unknown) => deps.log.warn({ err, modelId }, 'recorded model unavailable'));
      return { driver };
    }
    try {
      return { driver: await createBuiltinDriver({ ...base, modelServiceId }), modelApplied: true };
    } catch (err) {
      const modelError = err instanceof Error ? err.message : String(err);
      return { driver: await createBuiltinDriver(base), modelApplied: false, modelError };
    }
  };
}

/** What choosing between the built-in agent and an external one needs to know of the session. */
export interface AgentDriverRequest extends DriverRequest {
  readonly sessionId: string;
  readonly workspace: Workspace;
  /** The session's working directory (its worktree, or null for a remote workspace). */
  readonly cwd?: string | null;
}

/**
 * Puts external agents (issue 12) in front of the built-in factory: a
 * `modelServiceId` naming an agent (`qwen`, or `qwen/<model>`), a restored
 * session whose recorded model is an agent's, or, when the session names
 * nothing, the `--agent` default. Unlike an unknown model service, an agent
 * that cannot start fails the creation (503, or 504 `init_timeout`): falling
 * back to the built-in agent would run a different program than the one asked for.
 */
export function driverFactory(
  builtin: (request: DriverRequest) => Promise<DriverResult>,
  agents: AgentCatalog,
  log: Logger,
): (request: AgentDriverRequest) => Promise<DriverResult> {
  return async (request) => {
    const { modelServiceId, modelId } = request;
    const agentId =
      modelServiceId !== undefined
        ? agents.agentOf(modelServiceId)
        : modelId
          ? agents.agentOf(modelId)
          : (agents.defaultAgent ?? undefined);
    if (agentId === undefined) return builtin(request);
    const driver = await agents.create(agentId, request.sessionId, request.workspace, request.cwd ?? null);
    const wanted = modelServiceId?.includes('/') ? modelServiceId : modelId;
    if (wanted) await driver.setModel(wanted).catch((err: unknown) => log.warn({ err, modelId: wanted }, 'agent model unavailable'));
    return modelServiceId !== undefined ? { driver, modelApplied: true } : { driver };
  };
}
