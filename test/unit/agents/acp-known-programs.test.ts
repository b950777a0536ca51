import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { programEnv } from '../../../src/agents/acp/known-programs.js';
import { removeDir, tempDir, writeTree } from '../../support/tmp.js';

/** An npm-style install: the package folder and the bin link to its entry. */
const prefixes: string[] = [];
after(() => prefixes.forEach(removeDir));

function install(name: string): { entry: string; bin: string } {
  const prefix = tempDir('berth-known-programs-');
  prefixes.push(prefix);
  const pkg = join(prefix, 'node_modules', ...name.split('/'));
  writeTree(pkg, { 'package.json': JSON.stringify({ name, bin: { qwen: 'cli-entry.js' } }), 'cli-entry.js': '#!/usr/bin/env node\n' });
  const bin = join(prefix, 'node_modules', '.bin', 'qwen');
  mkdirSync(join(prefix, 'node_modules', '.bin'));
  symlinkSync(join(pkg, 'cli-entry.js'), bin);
  return { entry: join(pkg, 'cli-entry.js'), bin };
}

test('qwen is told not to relaunch itself, as qwen serve tells it, whether started through its bin link or as node <entry>', () => {
  const qwen = install('@qwen-code/qwen-code');
  assert.deepEqual(programEnv(qwen.bin, ['--acp']), { QWEN_CODE_NO_RELAUNCH: 'true' });
  assert.deepEqual(programEnv(process.execPath, [qwen.entry, '--acp']), { QWEN_CODE_NO_RELAUNCH: 'true' });
});

test('any other program gets nothing: another package, a relative script, a missing file', () => {
  const other = install('@example/agent');
  assert.deepEqual(programEnv(other.bin, ['--acp']), {});
  assert.deepEqual(programEnv(process.execPath, [other.entry]), {});
  assert.deepEqual(programEnv(process.execPath, ['cli-entry.js', '--acp']), {});
  assert.deepEqual(programEnv('/no/such/agent', []), {});
});
