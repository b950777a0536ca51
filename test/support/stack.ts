import { after, before, beforeEach } from 'node:test';
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
  // A daemon that refuses to start must not leave the model listening (it would keep the test process alive).
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
  }).catch(async (err: unknown) => {
    await model.close();
    throw err;
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

/**
 * One stack for the tests of a `describe` block: started before the first,
 * closed after the last, and the scripted model reset before each test — each
 * test scripts its own replies, and nothing one test left unused may leak into
 * the next. `use` is handed the stack once it started.
 */
export function stackPerSuite(use: (stack: Stack) => void, options: TestDaemonOptions = {}): void {
  let stack: Stack | undefined;
  before(async () => {
    stack = await startStack(options);
    use(stack);
  });
  beforeEach(() => stack!.model.reset());
  after(() => stack?.close());
}
