import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { startOwner, type RunningOwner } from '../../src/main/owner.js';
import { silentLogger } from '../../src/log.js';
import { FakeHost } from '../support/fake-host.js';
import { INTENTION, WORKSPACE_ID, ownerDirs, until, type TempOwnerDirs } from '../support/gateway.js';

/**
 * The owner at a terminal (issue 5: "an interactive terminal prompt" and
 * "`workspace_ask` reaches the owner's terminal"): A runs in this process
 * with a terminal made of two pipes, so the test types the owner's answers.
 */
describe('the owner answers at the terminal', { timeout: 30_000 }, () => {
  let host: FakeHost;
  let dirs: TempOwnerDirs;
  let owner: RunningOwner;
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = '';
  const status: string[] = [];
  output.on('data', (d: Buffer) => (shown += d.toString()));
  /** Waits until the terminal shows `text`, then types `answer`. */
  const answerWhen = async (text: string, answer: string) => {
    await until(() => shown.includes(text));
    shown = '';
    input.write(answer + '\n');
  };

  before(async () => {
    host = await FakeHost.start({ workspaceId: WORKSPACE_ID, sessionId: randomUUID(), intention: INTENTION });
    dirs = ownerDirs();
    owner = await startOwner({
      hostUrl: host.url,
      workspaceId: WORKSPACE_ID,
      project: dirs.project,
      intention: INTENTION,
      token: 'berth_ch_terminal-test',
      home: dirs.home,
      maxPolicy: 'critical',
      approve: null,
      terminal: { input, output },
      status: (line) => status.push(line),
      log: silentLogger(),
    });
  });
  after(async () => {
    await owner.stop();
    await host.close();
    dirs.remove();
  });

  test('a write runs only after the owner says yes, and is refused when the owner says no', async () => {
    const channel = await host.nthChannel(1);
    const yes = channel.call({ tool: 'workspace_write', args: { path: 'yes.txt', content: 'approved\n', expectedSha256: null } });
    await answerWhen('asks to run workspace_write (write)', 'y');
    assert.equal((await yes).created, true);
    assert.equal(readFileSync(join(dirs.project, 'yes.txt'), 'utf8'), 'approved\n');

    const no = channel.call({ tool: 'workspace_exec', args: { command: 'touch no.txt' } });
    await answerWhen('asks to run workspace_exec (critical) {"command":"touch no.txt"}', 'n');
    const refused = await no;
    assert.equal(refused.code, 'permission_rejected');
    assert.equal(existsSync(join(dirs.project, 'no.txt')), false);
  });

  test('workspace_ask puts the question on the owner’s terminal and sends the answer back', async () => {
    const channel = await host.nthChannel(1);
    const asked = channel.call({ tool: 'workspace_ask', args: { question: 'Which branch should I use?' } });
    await answerWhen('asks: Which branch should I use?', 'main, please');
    assert.deepEqual(await asked, { answer: 'main, please' });
    // The status line follows the result it describes.
    await until(() => status.some((l) => /workspace_ask · session \w{8} · ok/.test(l)));
  });

  test('questions from concurrent calls are put one at a time', async () => {
    const channel = await host.nthChannel(1);
    const first = channel.call({ tool: 'workspace_ask', args: { question: 'first?' } });
    const second = channel.call({ tool: 'workspace_ask', args: { question: 'second?' } });
    await until(() => shown.includes('first?'));
    assert.equal(shown.includes('second?'), false, 'the second waits for the first answer');
    await answerWhen('first?', 'one');
    await answerWhen('second?', 'two');
    assert.deepEqual([await first, await second], [{ answer: 'one' }, { answer: 'two' }]);
  });
});
