// The floor daemon of the benchmarks (bench/floor/server.mjs): a Berth row is only read against
// it when both did the same work, so it must answer the measured routes with what Berth answers
// and run a turn against the same scripted model. No timing is asserted.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_REPLY } from '../../../src/devtools/scripted-model/steps.js';
import { startStack, type Stack } from '../../support/stack.js';

// Plain .mjs loaded by URL, as in harness.test.ts: no declarations for tsc to ask for.
const load = (path: string): Promise<any> => import(new URL(`../../../bench/${path}`, import.meta.url).href);

const FILES = {
  '.gitignore': 'build/\n*.log\n',
  'src/a.ts': 'export const a = 1;\n',
  'src/deep/b.ts': 'export const b = 2;\n',
  'build/out.ts': 'ignored\n',
  'notes.log': 'ignored\n',
  'README.md': '# readme\n',
};

describe('the floor daemon of the benchmarks', () => {
  let stack: Stack;
  let floor: any;
  let floorClient: any;
  let berthClient: any;
  before(async () => {
    stack = await startStack({ files: FILES });
    floor = await (await load('floor.mjs')).startFloor({ workspace: stack.daemon.workspace, modelUrl: stack.model.url });
    const { keepAliveClient } = await load('lib/http-client.mjs');
    floorClient = keepAliveClient(floor.url);
    berthClient = keepAliveClient(stack.daemon.url);
  });
  after(async () => {
    floorClient?.close();
    berthClient?.close();
    await floor?.stop();
    await stack?.close();
  });

  const both = async (path: string) => {
    const [f, b] = [await floorClient.get(path), await berthClient.get(path)];
    assert.equal(f.status, 200, `floor ${path}`);
    assert.equal(b.status, 200, `berth ${path}`);
    return [JSON.parse(f.body.toString('utf8')), JSON.parse(b.body.toString('utf8'))];
  };

  it('reads a file, lists a folder and globs with root ignore rules as Berth does', async () => {
    const [fFile, bFile] = await both('/file?path=src%2Fa.ts');
    assert.equal(fFile.content, bFile.content);
    const [fList, bList] = await both('/list?path=src');
    const names = (body: any) => body.entries.map((e: any) => `${e.name}:${e.kind}`).sort();
    assert.deepEqual(names(fList), names(bList));
    const [fRoot, bRoot] = await both('/list?path=.');
    assert.deepEqual(names(fRoot), names(bRoot));
    assert.ok(!names(fRoot).includes('notes.log:file'), 'the floor hides what the root rules ignore');
    const [fGlob, bGlob] = await both(`/glob?pattern=${encodeURIComponent('**/*.ts')}`);
    assert.deepEqual([...fGlob.matches].sort(), [...bGlob.matches].sort());
    assert.deepEqual([...fGlob.matches].sort(), ['src/a.ts', 'src/deep/b.ts'], 'ignored files are not matched');
  });

  it('runs a turn against the scripted model and streams its reply and turn_complete', async () => {
    const steps = await load('lib/session-steps.mjs');
    const { sessionId } = await steps.createSession(floorClient);
    const stream = await steps.subscribe(floor.url, sessionId);
    try {
      const before = stack.model.completions().length;
      const turn = await steps.promptTurn(floorClient, stream, sessionId, 'Say hello');
      assert.equal(turn.reply, DEFAULT_REPLY.text);
      assert.equal(stack.model.completions().length, before + 1, 'one model request per turn');
    } finally {
      stream.close();
    }
  });
});
