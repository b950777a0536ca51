import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ConfigError, resolveConfig } from '../../../src/config/config.js';
import { tempDir } from '../../support/tmp.js';

/** A home folder holding `config.json` with the given content (an object is written as JSON). */
function homeWith(content: unknown): string {
  const home = tempDir('berth-home-');
  writeFileSync(join(home, 'config.json'), typeof content === 'string' ? content : JSON.stringify(content));
  return home;
}

const resolveWith = (home: string, env: NodeJS.ProcessEnv = {}) => resolveConfig({ home, workspaces: [home] }, env);

function refusal(home: string, env: NodeJS.ProcessEnv = {}): string {
  try {
    resolveWith(home, env);
  } catch (err) {
    assert.ok(err instanceof ConfigError, `expected a ConfigError, got ${String(err)}`);
    return err.message;
  }
  assert.fail('expected the configuration to be refused');
}

describe('model service configuration', () => {
  test('without a config file or OPENAI_* variables there are no model services', () => {
    assert.deepEqual(resolveWith(tempDir('berth-home-')).modelServices, []);
  });

  test('services come from the home config file, with apiKeyEnv read from the environment', () => {
    const home = homeWith({
      modelServices: [
        { id: 'local', baseUrl: 'http://127.0.0.1:11434/v1', models: [{ id: 'qwen3', name: 'Qwen 3' }], defaultModel: 'qwen3' },
        { id: 'cloud', baseUrl: 'https://example.invalid/v1', apiKeyEnv: 'CLOUD_KEY' },
      ],
      someOtherSetting: true,
    });
    const { modelServices } = resolveWith(home, { CLOUD_KEY: 'sk-cloud' });
    assert.deepEqual(modelServices, [
      { id: 'local', baseUrl: 'http://127.0.0.1:11434/v1', models: [{ id: 'qwen3', name: 'Qwen 3' }], defaultModel: 'qwen3' },
      { id: 'cloud', baseUrl: 'https://example.invalid/v1', apiKey: 'sk-cloud' },
    ]);
  });

  test('OPENAI_BASE_URL, OPENAI_API_KEY and OPENAI_MODEL make the service "env", which comes first unless the file names a default', () => {
    const env = { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_API_KEY: 'sk-env', OPENAI_MODEL: 'env-model' };
    const home = homeWith({ modelServices: [{ id: 'file', baseUrl: 'http://127.0.0.1:8/v1' }] });
    assert.deepEqual(
      resolveWith(home, env).modelServices.map((s) => s.id),
      ['env', 'file'],
    );
    assert.deepEqual(resolveWith(home, env).modelServices[0], {
      id: 'env',
      baseUrl: 'http://127.0.0.1:9/v1',
      apiKey: 'sk-env',
      defaultModel: 'env-model',
    });
    const preferring = homeWith({ defaultModelService: 'file', modelServices: [{ id: 'file', baseUrl: 'http://127.0.0.1:8/v1' }] });
    assert.deepEqual(
      resolveWith(preferring, env).modelServices.map((s) => s.id),
      ['file', 'env'],
    );
  });

  test('OPENAI_API_KEY alone points at the OpenAI endpoint', () => {
    const [service] = resolveWith(tempDir('berth-home-'), { OPENAI_API_KEY: 'sk-only' }).modelServices;
    assert.equal(service!.baseUrl, 'https://api.openai.com/v1');
  });

  test('services given directly replace the file and the environment but are checked the same way', () => {
    const home = homeWith({ modelServices: [{ id: 'file', baseUrl: 'http://127.0.0.1:8/v1' }] });
    const config = resolveConfig({ home, workspaces: [home], modelServices: [{ id: 'direct', baseUrl: 'http://127.0.0.1:7/v1' }] }, { OPENAI_API_KEY: 'x' });
    assert.deepEqual(config.modelServices.map((s) => s.id), ['direct']);
    assert.throws(
      () => resolveConfig({ home, workspaces: [home], modelServices: [{ id: 'a', baseUrl: 'ftp://x' }] }, {}),
      (e: unknown) => e instanceof ConfigError && /modelServices\[0\]\.baseUrl/.test(e.message),
    );
  });

  const refusals: Array<[string, unknown, RegExp, NodeJS.ProcessEnv?]> = [
    ['a file that is not JSON', '{"modelServices": [', /is not valid JSON/],
    ['a service without baseUrl', { modelServices: [{ id: 'x' }] }, /modelServices\[0\]\.baseUrl is required/],
    ['a baseUrl that is not http(s)', { modelServices: [{ id: 'x', baseUrl: 'file:///etc' }] }, /modelServices\[0\]\.baseUrl must match/],
    ['an unknown field in a service', { modelServices: [{ id: 'x', baseUrl: 'http://h/v1', apikey: 'typo' }] }, /modelServices\[0\]\.apikey is not a known field/],
    ['both apiKey and apiKeyEnv', { modelServices: [{ id: 'x', baseUrl: 'http://h/v1', apiKey: 'a', apiKeyEnv: 'B' }] }, /modelServices\[0\] sets both apiKey and apiKeyEnv/],
    ['an apiKeyEnv that is not set', { modelServices: [{ id: 'x', baseUrl: 'http://h/v1', apiKeyEnv: 'MISSING_KEY' }] }, /modelServices\[0\]\.apiKeyEnv names MISSING_KEY, which is not set/],
    ['two services with one id', { modelServices: [{ id: 'x', baseUrl: 'http://h/v1' }, { id: 'x', baseUrl: 'http://g/v1' }] }, /modelServices\[1\]\.id "x" is used by two services/],
    ['the reserved id env', { modelServices: [{ id: 'env', baseUrl: 'http://h/v1' }] }, /modelServices\[0\]\.id "env" is reserved/],
    ['a defaultModel outside its models', { modelServices: [{ id: 'x', baseUrl: 'http://h/v1', models: [{ id: 'a' }], defaultModel: 'b' }] }, /modelServices\[0\]\.defaultModel "b" is not among its models/],
    ['a defaultModelService that names no service', { defaultModelService: 'nope', modelServices: [] }, /defaultModelService "nope" is not the id/],
    ['a model without an id', { modelServices: [{ id: 'x', baseUrl: 'http://h/v1', models: [{ name: 'n' }] }] }, /modelServices\[0\]\.models\[0\]\.id is required/],
  ];
  for (const [what, content, expected, env] of refusals) {
    test(`start-up refuses ${what}, naming the file and the field`, () => {
      const home = homeWith(content);
      const message = refusal(home, env);
      assert.ok(message.startsWith(join(home, 'config.json')), message);
      assert.match(message, expected);
    });
  }
});
