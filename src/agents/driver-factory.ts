import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
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
