import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { installRoots } from '../../../src/tools/builtin/commands/install-roots.js';
import { sandboxArgs } from '../../../src/tools/builtin/commands/sandbox.js';
import { removeDir, tempDir } from '../../support/tmp.js';

describe('the install a sandboxed agent or MCP server may read', () => {
  const base = tempDir('berth-install-');
  after(() => removeDir(base));
  const file = (rel: string) => {
    const path = join(base, rel);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, '');
    return path;
  };

  it('is the folder above the outermost node_modules for an npm install, with its dependencies', () => {
    const cli = file('cache/peer/node_modules/@scope/agent/node_modules/inner/cli.js');
    assert.deepEqual(installRoots(['/no/such/program', cli]), [join(base, 'cache/peer')]);
  });

  it('is the nearest folder with a package.json for a project script, else the script folder; bare names and missing paths give none', () => {
    file('project/package.json');
    const script = file('project/test/support/agent.mjs');
    const loose = file('loose/server.mjs');
    assert.deepEqual(installRoots(['node', script, '--flag', loose, join(base, 'missing.js')]), [join(base, 'project'), join(base, 'loose')]);
  });

  it('is bound read-only before the hidden paths are covered, so a hidden path inside it stays hidden', () => {
    const args = sandboxArgs({ root: '/ws', cwd: '/ws', hidden: ['/tmp/install/home'], network: true, readable: ['/tmp/install'] });
    const ro = args.indexOf('/tmp/install');
    const hide = args.lastIndexOf('/tmp/install/home');
    assert.equal(args[ro - 1], '--ro-bind');
    assert.ok(args.indexOf('/tmp') < ro && ro < hide, args.join(' '));
  });
});
