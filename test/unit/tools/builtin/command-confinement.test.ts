import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { commandEnv } from '../../../../src/tools/builtin/commands/command-env.js';
import { CommandConfinement } from '../../../../src/tools/builtin/commands/confinement.js';
import { sandboxArgs } from '../../../../src/tools/builtin/commands/sandbox.js';

const DAEMON_ENV = {
  PATH: '/usr/bin:/bin',
  HOME: '/home/me',
  LANG: 'C.UTF-8',
  LC_ALL: 'C.UTF-8',
  BERTH_TOKEN: 'owner-secret',
  BERTH_HOME: '/home/me/.berth',
  OPENAI_API_KEY: 'sk-secret',
  AWS_SECRET_ACCESS_KEY: 'aws-secret',
  GITHUB_TOKEN: 'gh-secret',
};

describe('the environment of a command', () => {
  it('keeps only the harmless variables of the daemon, whatever their names hide', () => {
    assert.deepEqual(commandEnv(DAEMON_ENV), {
      PATH: '/usr/bin:/bin',
      HOME: '/home/me',
      LANG: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      PAGER: 'cat',
      GIT_PAGER: 'cat',
    });
  });

  it('adds what the workspace passes on or sets, but never a Berth variable', () => {
    const env = commandEnv(DAEMON_ENV, { passEnv: ['OPENAI_API_KEY', 'BERTH_TOKEN', 'NOT_SET'], env: { CI: '1', BERTH_HOME: '/x' } });
    assert.equal(env.OPENAI_API_KEY, 'sk-secret');
    assert.equal(env.CI, '1');
    assert.equal(env.BERTH_TOKEN, undefined);
    assert.equal(env.BERTH_HOME, undefined);
    assert.equal('NOT_SET' in env, false);
    assert.equal(env.GITHUB_TOKEN, undefined);
  });
});

describe('what a sandbox sees', () => {
  const order = (args: string[], ...items: string[]) => items.map((i) => args.indexOf(i));

  it('hides the home and other workspaces before binding the workspace, so a workspace inside the home stays visible', () => {
    const args = sandboxArgs({ root: '/home/me/.berth/ws', cwd: '/home/me/.berth/ws/src', hidden: ['/home/me/.berth', '/srv/other'], network: true });
    const [home, other, bind] = order(args, '/home/me/.berth', '/srv/other', '--bind');
    assert.ok(home < bind && other < bind, args.join(' '));
    assert.deepEqual(args.slice(bind, bind + 3), ['--bind', '/home/me/.berth/ws', '/home/me/.berth/ws']);
    assert.deepEqual(args.slice(-3), ['--chdir', '/home/me/.berth/ws/src', '--']);
    assert.ok(!args.includes('--unshare-net'));
    assert.ok(args.includes('--unshare-pid') && args.includes('--die-with-parent'));
    assert.deepEqual(args.slice(args.indexOf('--cap-drop'), args.indexOf('--cap-drop') + 2), ['--cap-drop', 'ALL']);
  });

  it('hides a workspace nested in this one after binding it, and drops the network when told', () => {
    const args = sandboxArgs({ root: '/p', cwd: '/p', hidden: ['/p/nested'], network: false });
    assert.ok(args.indexOf('/p/nested') > args.indexOf('--bind'));
    assert.ok(args.includes('--unshare-net'));
  });

  it('is not used, and network cannot be taken away, without bubblewrap', () => {
    const c = new CommandConfinement({
      sandbox: () => ({ available: false, tool: null, reason: "not installed" }),
      home: '/h',
      workspaces: [{ id: 'w1', root: '/p' }],
      settings: { w1: { network: false } },
      baseEnv: DAEMON_ENV,
    });
    const launch = c.launch({ id: 'w1', root: '/p' }, '/p');
    assert.deepEqual(launch.wrapper, []);
    assert.equal(launch.env.OPENAI_API_KEY, undefined);
    assert.equal(c.networkOf('w1'), true);
    assert.deepEqual(c.unenforcedOffline(), ['w1']);
  });

  it('answers a workspace with network from its settings, without probing for the sandbox; one without it probes', () => {
    let probes = 0;
    const c = new CommandConfinement({
      sandbox: () => (probes++, { available: true, tool: 'bubblewrap', path: '/usr/bin/bwrap' }),
      home: '/h',
      workspaces: [{ id: 'open', root: '/p' }, { id: 'closed', root: '/q' }],
      settings: { closed: { network: false } },
      baseEnv: DAEMON_ENV,
    });
    assert.equal(c.networkOf('open'), true);
    assert.equal(probes, 0, 'a session opened before the probe finished does not wait for it');
    assert.equal(c.networkOf('closed'), false);
    assert.equal(probes, 1);
  });
});
