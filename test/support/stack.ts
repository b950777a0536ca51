import { startScriptedModel, type ScriptedModel } from '../../src/devtools/scripted-model/index.js';
import { startTestDaemon, type TestDaemon, type TestDaemonOptions } from './daemon.js';

export interface Stack {
  readonly daemon: TestDaemon;
  readonly model: ScriptedModel;
  close(): Promise<void>;
}

/** The model ids the scripted service offers; the first is the default. */
export const SCRIPTED_MODELS = ['scripted-model', 'scripted-model-2'];
export const SCRIPTED_SERVICE = 'scripted';

/**
 * A real daemon on loopback whose built-in agent talks over real HTTP to the
 * project's scripted model server (the end-to-end setup of every session test).
 */
export async function startStack(options: TestDaemonOptions = {}): Promise<Stack> {
  const model = await startScriptedModel({ port: 0 });
  const daemon = await startTestDaemon({
    ...options,
    config: {
      modelServices: [
        {
          id: SCRIPTED_SERVICE,
          baseUrl: model.url,
          models: SCRIPTED_MODELS.map((id) => ({ id })),
          defaultModel: SCRIPTED_MODELS[0],
        },
      ],
      ...options.config,
    },
  });
  return {
    daemon,
    model,
    async close() {
      await daemon.close();
      await model.close();
    },
  };
}
