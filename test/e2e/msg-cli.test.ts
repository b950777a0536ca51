import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { MODULE_SESSION_ENV, MODULE_SOCKET_ENV, MODULE_TOKEN_ENV } from '../../src/messaging/index.js';
import { askModule } from '../../src/modules/index.js';
import { spawnBerth } from '../support/daemon.js';
import { openTab, type OpenedTab } from '../support/module.js';
import { startStack, type Stack } from '../support/stack.js';

/** Runs `berth …` to its end and collects what it printed. */
async function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child: ChildProcess = spawnBerth(args, { [MODULE_SOCKET_ENV]: '', [MODULE_TOKEN_ENV]: '', [MODULE_SESSION_ENV]: '', ...env });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, stdout, stderr };
}

describe('berth msg and the environment of an external agent (issue 6, Deliver 5 and 6)', () => {
  let s: Stack;
  let a: OpenedTab;
  let c: OpenedTab;
  let env: Record<string, string>;
  before(async () => {
    s = await startStack({ config: { sessionIdleTimeoutMs: 0 } });
    a = await openTab(s.daemon);
    c = await openTab(s.daemon);
    s.daemon.daemon.core.messaging.declare(c.sessionId, { delivery: 'inbox' });
    env = await s.daemon.daemon.core.messaging.externalAgentEnv(a.sessionId);
  });
  after(() => s.close());

  it('gives an external agent the socket, a fresh token and its session in its environment', async () => {
    assert.deepEqual(Object.keys(env).sort(), [MODULE_SESSION_ENV, MODULE_SOCKET_ENV, MODULE_TOKEN_ENV].sort());
    assert.equal(env[MODULE_SOCKET_ENV], a.socket);
    assert.equal(env[MODULE_SESSION_ENV], a.sessionId);
    assert.notEqual(env[MODULE_TOKEN_ENV], a.token, 'the agent gets a token of its own');
    assert.equal((await askModule(a.socket, { token: a.token, op: 'list' })).code, 'unauthorized', 'the earlier token was replaced');
    const answer = await askModule(env[MODULE_SOCKET_ENV]!, { token: env[MODULE_TOKEN_ENV]!, session: env[MODULE_SESSION_ENV]!, op: 'list' });
    assert.equal(answer.you!.tab, a.tab);
  });

  it('lists the tabs as the answer text, with the socket and token taken from the environment', async () => {
    const r = await run(['msg', 'list'], env);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^You are tab ${a.tab} in workspace`));
    assert.match(r.stdout, new RegExp(`- tab ${c.tab}: built-in, scripted, network, reads its inbox`));
  });

  it('sends with a kind, and the receiver peeks at it as a JSON line with flags instead of the environment', async () => {
    const sent = await run(['msg', 'send', '--tab', c.tab, '--kind', 'question', 'Is', 'the', 'parser', 'done?'], env);
    assert.equal(sent.code, 0, sent.stderr);
    assert.match(sent.stdout, new RegExp(`Left in tab ${c.tab}'s inbox`));
    const peek = await run(['msg', 'peek', '--json', '--socket', c.socket, '--token', c.token], {});
    assert.equal(peek.code, 0, peek.stderr);
    assert.equal(peek.stdout.split('\n').length, 2, 'exactly one line');
    const line = JSON.parse(peek.stdout);
    assert.equal(line.ok, true);
    assert.deepEqual(
      line.messages.map((m: { tab: string; kind: string; text: string }) => [m.tab, m.kind, m.text]),
      [[a.tab, 'question', 'Is the parser done?']],
    );
  });

  it('exits 1 with the refusal text when the daemon refuses, and 2 when it has no token', async () => {
    const refused = await run(['msg', 'send', '--tab', '999', 'hello?'], env);
    assert.equal(refused.code, 1);
    assert.match(refused.stdout, /no tab 999 is open/);
    const noToken = await run(['msg', 'inbox', '--socket', a.socket], {});
    assert.equal(noToken.code, 2);
    assert.match(noToken.stderr, /needs a module token/);
  });
});
