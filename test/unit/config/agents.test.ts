import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadAgentSettings } from '../../../src/config/agents.js';
import { ConfigError, resolveConfig } from '../../../src/config/config.js';
import { tempDir } from '../../support/tmp.js';

/** `agents` in config.json, the presets found on PATH, and `--agent` / `--agent-command` (issue 12). */

function fakeCommand(dir: string, name: string): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, name);
  writeFileSync(file, '#!/bin/sh\n');
  chmodSync(file, 0o755);
  return file;
}

describe('agent settings', () => {
  it('offers a preset only when its command is on PATH', () => {
    const home = tempDir('berth-home-');
    const bin = tempDir('bin-');
    assert.deepEqual(loadAgentSettings(home, { PATH: bin }).agents, []);
    fakeCommand(bin, 'qwen');
    const found = loadAgentSettings(home, { PATH: bin }).agents;
    assert.deepEqual(found.map((a) => [a.id, a.command, a.args]), [['qwen', 'qwen', ['--acp']]]);
  });

  it('keeps a configured agent even when its command is missing, and lets it replace a preset of the same id', () => {
    const home = tempDir('berth-home-');
    const bin = tempDir('bin-');
    fakeCommand(bin, 'qwen');
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({ agents: [{ id: 'qwen', command: '/opt/qwen/bin/qwen', args: ['--acp', '--debug'], env: { QWEN_X: '1' } }, { id: 'mine', command: 'not-installed' }] }),
    );
    const agents = loadAgentSettings(home, { PATH: bin }).agents;
    assert.deepEqual(agents.map((a) => a.id), ['qwen', 'mine']);
    assert.equal(agents[0]!.command, '/opt/qwen/bin/qwen');
    assert.deepEqual(agents[0]!.env, { QWEN_X: '1' });
    assert.equal(agents[1]!.cwdMode, 'workspace');
  });

  it('refuses an unknown field, a BERTH_* variable and a duplicate id in config.json', () => {
    const home = tempDir('berth-home-');
    const write = (agents: unknown) => writeFileSync(join(home, 'config.json'), JSON.stringify({ agents }));
    write([{ id: 'a', command: 'x', cwd: '/' }]);
    assert.throws(() => loadAgentSettings(home, {}), /agents/);
    write([{ id: 'a', command: 'x', env: { BERTH_TOKEN: 'leak' } }]);
    assert.throws(() => loadAgentSettings(home, {}), /BERTH_/);
    write([{ id: 'a', command: 'x' }, { id: 'a', command: 'y' }]);
    assert.throws(() => loadAgentSettings(home, {}), /twice/);
  });

  it('--agent-command gives the --agent agent its command, preset or new', () => {
    const home = tempDir('berth-home-');
    const preset = loadAgentSettings(home, {}, { agent: 'gemini', agentCommand: '/usr/local/bin/gemini' });
    assert.deepEqual(preset.agents.map((a) => [a.id, a.command, a.args]), [['gemini', '/usr/local/bin/gemini', ['--experimental-acp']]]);
    assert.equal(preset.defaultAgent, 'gemini');
    const custom = loadAgentSettings(home, {}, { agent: 'other', agentCommand: '/opt/other-acp' });
    assert.deepEqual(custom.agents.map((a) => [a.id, a.command]), [['other', '/opt/other-acp']]);
    assert.throws(() => loadAgentSettings(home, {}, { agentCommand: '/x' }), /--agent-command needs --agent/);
  });

  it('refuses an --agent that is neither configured nor a preset; a preset named by --agent stays listed even when not installed', () => {
    const home = tempDir('berth-home-');
    assert.throws(() => resolveConfig({ home, workspaces: [home], agentFlags: { agent: 'nope' } }, {}), (err: unknown) => {
      return err instanceof ConfigError && /--agent nope: no such agent/.test(err.message);
    });
    const config = resolveConfig({ home, workspaces: [home], agentFlags: { agent: 'codex' } }, {});
    assert.deepEqual(config.agents.agents.map((a) => a.id), ['codex']);
    assert.equal(config.agents.defaultAgent, 'codex');
  });

  it('refuses an agent id that a model service also uses', () => {
    const home = tempDir('berth-home-');
    assert.throws(
      () => resolveConfig({ home, workspaces: [home], modelServices: [{ id: 'qwen', baseUrl: 'http://127.0.0.1:1/v1' }], agentFlags: { agent: 'qwen', agentCommand: '/x' } }, {}),
      /also a model service id/,
    );
  });
});
