import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startScriptedModel } from '../../src/devtools/scripted-model/index.js';
import { spawnDaemon, startTestDaemon } from '../support/daemon.js';
import { removeDir, tempDir } from '../support/tmp.js';

describe('model services at the daemon', () => {
  test('/capabilities lists the model service ids from the home config file, default first', async () => {
    const home = tempDir('berth-home-');
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        defaultModelService: 'second',
        modelServices: [
          { id: 'first', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-never-shown' },
          { id: 'second', baseUrl: 'http://127.0.0.1:9/v1' },
        ],
      }),
    );
    const d = await startTestDaemon({ home });
    try {
      const res = await d.json('GET', '/capabilities');
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.modelServices, ['second', 'first']);
      assert.equal(JSON.stringify(res.body).includes('sk-never-shown'), false);
    } finally {
      await d.close();
      removeDir(home);
    }
  });

  test('a spawned daemon takes the OPENAI_* environment as the service "env" and never prints the key', async () => {
    const model = await startScriptedModel();
    const home = tempDir('berth-home-');
    const daemon = await spawnDaemon(['--home', home, '--workspace', home], {
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: 'sk-env-secret',
      OPENAI_MODEL: 'scripted-model',
      BERTH_LOG_LEVEL: 'debug',
    });
    try {
      const caps = (await (await fetch(`${daemon.url}/capabilities`)).json()) as { modelServices: string[] };
      assert.deepEqual(caps.modelServices, ['env']);
    } finally {
      await daemon.stop();
      await model.close();
      removeDir(home);
    }
    assert.equal(daemon.stderr().includes('sk-env-secret'), false);
  });

  test('a daemon with a broken config.json refuses to start and names the file and the field', async () => {
    const home = tempDir('berth-home-');
    writeFileSync(join(home, 'config.json'), JSON.stringify({ modelServices: [{ id: 'x', baseUrl: 'http://h/v1', models: 'all' }] }));
    try {
      await assert.rejects(spawnDaemon(['--home', home, '--workspace', home]), (err: Error) => {
        assert.match(err.message, /exited with 2/);
        assert.ok(err.message.includes(join(home, 'config.json')), err.message);
        assert.match(err.message, /modelServices\[0\]\.models must be array/);
        return true;
      });
    } finally {
      removeDir(home);
    }
  });
});
