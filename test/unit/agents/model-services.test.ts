import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createBuiltinDriver } from '../../../src/agents/builtin/index.js';
import { ModelServices } from '../../../src/agents/models/index.js';
import type { Clock } from '../../../src/clock.js';
import { MODEL_DISCOVERY_RETRY_MS } from '../../../src/agents/models/limits.js';
import type { ModelServiceSpec } from '../../../src/config/model-services.js';
import { startScriptedModel, type ScriptedModel } from '../../../src/devtools/scripted-model/index.js';
import { tempDir } from '../../support/tmp.js';
import { recordingTurnIO } from '../../support/turn-io.js';

let model: ScriptedModel;
before(async () => {
  model = await startScriptedModel({ models: ['m-one', 'm-two'] });
});
after(() => model.close());
beforeEach(() => model.reset());

/** A clock the test moves by hand, so the retry interval passes without sleeping. */
function manualClock(start = 1_000_000): Clock & { advance(ms: number): void } {
  let now = start;
  return { now: () => now, advance: (ms) => (now += ms) };
}

const registry = (specs: ModelServiceSpec[], clock: Clock = manualClock(), onDiscoveryFailed?: (id: string, e: string) => void) =>
  new ModelServices(specs, { clock, home: tempDir(), onDiscoveryFailed });

const modelListRequests = () => model.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/models')).length;

describe('model services', () => {
  test('a service without configured models discovers them once through GET /models and reuses the answer', async () => {
    const services = registry([{ id: 'local', baseUrl: model.url }]);
    const first = await createBuiltinDriver({ services, maxTurnIterations: 5, clock: manualClock() });
    const second = await createBuiltinDriver({ services, maxTurnIterations: 5, clock: manualClock() });
    assert.deepEqual(
      first.state().models.availableModels.map((m) => m.modelId),
      ['local/m-one', 'local/m-two'],
    );
    assert.equal(first.state().models.currentModelId, 'local/m-one');
    assert.deepEqual(second.state(), first.state());
    await first.runTurn(recordingTurnIO());
    await second.runTurn(recordingTurnIO());
    assert.equal(modelListRequests(), 1);
    assert.equal(model.completions()[0]!.model, 'm-one');
  });

  test('configured models are used as given, with their names and descriptions, and nothing is discovered', async () => {
    const services = registry([
      { id: 'cfg', baseUrl: model.url, models: [{ id: 'big', name: 'Big Model', description: 'slow but clever' }, { id: 'small' }], defaultModel: 'small' },
    ]);
    const driver = await createBuiltinDriver({ services, maxTurnIterations: 5, clock: manualClock() });
    assert.deepEqual(driver.state().models, {
      currentModelId: 'cfg/small',
      availableModels: [
        { modelId: 'cfg/big', name: 'Big Model', description: 'slow but clever' },
        { modelId: 'cfg/small', name: 'small' },
      ],
    });
    assert.equal(modelListRequests(), 0);
  });

  test('a failed discovery is reported, falls back to the default model, and is retried only after the retry interval', async () => {
    const gone = await startScriptedModel();
    await gone.close();
    const clock = manualClock();
    const failures: string[] = [];
    const services = registry([{ id: 'down', baseUrl: gone.url, defaultModel: 'fallback-model' }], clock, (id, e) => failures.push(`${id}: ${e}`));
    const driver = await createBuiltinDriver({ services, maxTurnIterations: 5, clock });
    assert.deepEqual(driver.state().models, {
      currentModelId: 'down/fallback-model',
      availableModels: [{ modelId: 'down/fallback-model', name: 'fallback-model' }],
    });
    assert.equal(failures.length, 1);
    assert.match(failures[0]!, /^down: GET .*\/models failed/);
    await services.get('down')!.models();
    assert.equal(failures.length, 1, 'a cached failure is not retried at once');
    clock.advance(MODEL_DISCOVERY_RETRY_MS);
    await services.get('down')!.models();
    assert.equal(failures.length, 2, 'after the interval discovery is tried again');
  });

  test('the warm-up asks for the model list, and the first session then asks nothing', async () => {
    const services = registry([{ id: 'local', baseUrl: model.url }]);
    await services.warmUp();
    assert.equal(modelListRequests(), 1);
    const driver = await createBuiltinDriver({ services, maxTurnIterations: 5, clock: manualClock() });
    assert.deepEqual(
      driver.state().models.availableModels.map((m) => m.modelId),
      ['local/m-one', 'local/m-two'],
    );
    assert.equal(modelListRequests(), 1);
  });

  test('a warm-up discovery that fails is neither reported nor kept: the first session asks again', async () => {
    const gone = await startScriptedModel();
    await gone.close();
    const failures: string[] = [];
    const services = registry([{ id: 'late', baseUrl: gone.url, defaultModel: 'fallback-model' }], manualClock(), (id) => failures.push(id));
    await services.warmUp();
    assert.deepEqual(failures, []);
    assert.equal(services.get('late')!.known(), undefined);
    await services.get('late')!.models();
    assert.deepEqual(failures, ['late'], 'the session-time discovery fails and is reported as before');
  });

  test('a session that joins a warm-up discovery in flight owns its failure', async () => {
    const gone = await startScriptedModel();
    await gone.close();
    const failures: string[] = [];
    const services = registry([{ id: 'late', baseUrl: gone.url, defaultModel: 'fallback-model' }], manualClock(), (id) => failures.push(id));
    const service = services.get('late')!;
    await service.client();
    const warming = service.prefetch();
    const listing = await service.models();
    await warming;
    assert.equal(listing.source, 'fallback');
    assert.deepEqual(failures, ['late']);
    assert.equal(service.known()?.source, 'fallback');
  });

  test('a service that cannot list models and has no default model refuses prompts with model_not_configured', async () => {
    const gone = await startScriptedModel();
    await gone.close();
    const services = registry([{ id: 'down', baseUrl: gone.url }]);
    const driver = await createBuiltinDriver({ services, maxTurnIterations: 5, clock: manualClock() });
    assert.equal(driver.state().models.currentModelId, null);
    await assert.rejects(driver.runTurn(recordingTurnIO()), (e: any) => e.code === 'model_not_configured' && /defaultModel/.test(e.message));
  });

  test('the API key goes as a bearer token, and a keyless service sends no Authorization header', async () => {
    const keyed = registry([{ id: 'k', baseUrl: model.url, apiKey: 'sk-secret', defaultModel: 'm-one', models: [{ id: 'm-one' }] }]);
    await (await createBuiltinDriver({ services: keyed, maxTurnIterations: 5, clock: manualClock() })).runTurn(recordingTurnIO());
    const keyless = registry([{ id: 'n', baseUrl: model.url, defaultModel: 'm-one', models: [{ id: 'm-one' }] }]);
    await (await createBuiltinDriver({ services: keyless, maxTurnIterations: 5, clock: manualClock() })).runTurn(recordingTurnIO());
    const [withKey, without] = model.requests.filter((r) => r.path.endsWith('/chat/completions'));
    assert.equal(withKey!.headers.authorization, 'Bearer sk-secret');
    assert.equal(without!.headers.authorization, undefined);
  });

  test('ids() lists services default first; a bare model name resolves only when one service offers it', async () => {
    const services = registry([
      { id: 'a', baseUrl: model.url, models: [{ id: 'shared' }, { id: 'only-a' }] },
      { id: 'b', baseUrl: model.url, models: [{ id: 'shared' }] },
    ]);
    assert.deepEqual(services.ids(), ['a', 'b']);
    assert.equal(services.default()?.id, 'a');
    assert.equal((await services.resolve('only-a'))?.service.id, 'a');
    assert.equal(await services.resolve('shared'), undefined);
    assert.equal((await services.resolve('b/shared'))?.service.id, 'b');
    assert.equal(await services.resolve('b/only-a'), undefined);
  });

  test('a model name with slashes of its own survives the service/model id scheme', async () => {
    const services = registry([{ id: 'hf', baseUrl: model.url, models: [{ id: 'Qwen/Qwen3-8B' }] }]);
    const driver = await createBuiltinDriver({ services, maxTurnIterations: 5, clock: manualClock() });
    assert.equal(driver.state().models.currentModelId, 'hf/Qwen/Qwen3-8B');
    await driver.setModel('hf/Qwen/Qwen3-8B');
    await driver.runTurn(recordingTurnIO());
    assert.equal(model.completions()[0]!.model, 'Qwen/Qwen3-8B');
  });
});
