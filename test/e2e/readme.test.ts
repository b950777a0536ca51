import assert from 'node:assert/strict';
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { startScriptedModel } from '../../src/devtools/scripted-model/index.js';
import { commandsOf, readmeBlocks } from '../support/readme-commands.js';
import { ShellSession } from '../support/shell-session.js';
import { removeDir, tempDir } from '../support/tmp.js';

/**
 * Issue 11 acceptance: every command of README.md's quick start and usage
 * sections, taken from the README itself (so it cannot drift from what
 * works), typed into one shell in a copy of this checkout, with the scripted
 * model as the OpenAI-compatible endpoint the README says to configure.
 *
 * What is not literally what a newcomer's terminal does, and why:
 * - HOME is a temp folder (so `~/.berth` and `~/berth-client` are throw-away)
 *   and OPENAI_BASE_URL/OPENAI_API_KEY/OPENAI_MODEL point at the scripted model.
 * - Port 4170 is replaced by a free port everywhere (the machine may run
 *   another daemon there); `npx berth serve` gets `--port` for it, and
 *   BERTH_URL points `berth msg`'s default URL at it.
 * - `npm ci` is not run (it would replace the node_modules this suite runs
 *   on, and needs the network): the copy links this checkout's installed
 *   node_modules, and the step `npm ci` ends with, its prepare script
 *   (`npm run build`), is run in the copy. `npm install <packages>` likewise
 *   links those installed packages. `npm test` is this suite: not run again.
 * - `npx NAME` runs what npx finds locally — `node_modules/.bin/NAME`, or the
 *   package's own bin when NAME is this package — and never downloads; one
 *   command (`npx berth serve --help`) goes through the real npx, offline, to
 *   show that it resolves to this package.
 * - Commands that keep running (`npx berth serve`, the example app) are
 *   started in the background, probed once they say they are ready, and
 *   stopped by their PID at the end.
 */

const repoRoot = new URL('../..', import.meta.url).pathname;
const README = readFileSync(join(repoRoot, 'README.md'), 'utf8');

/** Sections whose shell commands this test does not run, each with its reason. */
const NOT_RUN: Record<string, string> = {
  'A project on another machine: the gateway channel':
    'two machines: an owner dials a public agent host (test/e2e/gateway-token-cli and gateway-owner run these commands on loopback)',
};
/** The TypeScript blocks that are fragments of a program, not programs. */
const FRAGMENTS: Record<string, string> = {
  'Applications publish tools: the tool protocol': 'the berth/app SDK inside an application of your own',
};
const SNIPPET_SECTION = 'Sessions and the client API';
const SNIPPET_FILE = 'summarise.mts';

/** `npx` as it resolves locally; `exec` for a background command, so its PID is the program's own. */
const npxFunction = (exec: boolean) => `npx() {
  local name="$1"; shift
  if [ -x "node_modules/.bin/$name" ]; then ${exec ? 'exec ' : ''}"node_modules/.bin/$name" "$@"
  elif [ "$name" = berth ] && [ -f bin/berth.js ] && [ "$(node -p 'require("./package.json").name')" = berth ]; then ${exec ? 'exec ' : ''}node bin/berth.js "$@"
  else echo "npx $name: not installed here (this test never downloads)" >&2; return 127; fi
}`;

const isLongRunning = (command: string) =>
  (/^npx berth serve\b/.test(command) && !command.includes('--help')) || /^node --import tsx examples\/notes-app\.ts\b/.test(command);

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A fresh terminal's environment: none of this suite's npm or Berth variables. */
function terminalEnv(home: string, modelUrl: string, port: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(npm_|BERTH_|INIT_CWD$|OPENAI_)/i.test(k)) env[k] = v;
  return {
    ...env,
    HOME: home,
    OPENAI_BASE_URL: modelUrl,
    OPENAI_API_KEY: 'sk-scripted',
    OPENAI_MODEL: 'scripted-model',
    BERTH_URL: `http://127.0.0.1:${port}`,
    npm_config_offline: 'true',
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    NO_COLOR: '1',
  };
}

/** A copy of this checkout (what `git clone` gives), with the installed node_modules linked in. */
function copyCheckout(to: string): void {
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: repoRoot, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f !== '' && existsSync(join(repoRoot, f)));
  for (const f of files) {
    mkdirSync(dirname(join(to, f)), { recursive: true });
    cpSync(join(repoRoot, f), join(to, f));
  }
  symlinkSync(join(repoRoot, 'node_modules'), join(to, 'node_modules'));
}

/** `npm install a b` in `dir`, from what this checkout installed: the packages and their bins, linked. */
function linkInstalled(dir: string, names: string[]): void {
  for (const name of names) {
    const installed = join(repoRoot, 'node_modules', name);
    assert.ok(existsSync(installed), `${name} is not installed in this checkout`);
    mkdirSync(dirname(join(dir, 'node_modules', name)), { recursive: true });
    symlinkSync(installed, join(dir, 'node_modules', name));
    const bin = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')).bin as string | Record<string, string> | undefined;
    const bins = typeof bin === 'string' ? { [name.split('/').pop()!]: bin } : (bin ?? {});
    mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
    for (const [b, target] of Object.entries(bins)) symlinkSync(join(installed, target), join(dir, 'node_modules', '.bin', b));
  }
}

interface Background {
  readonly command: string;
  readonly child: ChildProcess;
  readonly ready: string;
  readonly exited: Promise<number | null>;
}

/** Starts a command that keeps running and waits for the line that says it is ready. */
async function startBackground(command: string, cwd: string, env: NodeJS.ProcessEnv, ready: RegExp): Promise<Background> {
  const script = `${npxFunction(true)}\n${command.startsWith('npx ') ? command : `exec ${command}`}`;
  const child = spawn('bash', ['--noprofile', '--norc', '-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let out = '';
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const line = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = ready.exec(out);
      if (m) resolve(m[0]);
    });
    void exited.then((code) => reject(new Error(`${command} exited with ${code} before it was ready:\n${out}\n${err}`)));
  });
  return { command, child, ready: line, exited };
}

test('every command of the README quick start and usage sections runs as written, with the scripted model', { timeout: 900_000 }, async () => {
  const blocks = readmeBlocks(README);
  const shellSections = [...new Set(blocks.filter((b) => b.lang === 'sh').map((b) => b.section))];
  for (const skipped of Object.keys(NOT_RUN)) assert.ok(shellSections.includes(skipped), `README.md no longer has "${skipped}"`);
  assert.ok(shellSections.includes('Quick start'));
  const tsBlocks = blocks.filter((b) => b.lang === 'ts');
  assert.deepEqual(tsBlocks.map((b) => b.section).sort(), [SNIPPET_SECTION, ...Object.keys(FRAGMENTS)].sort(), 'every TypeScript block is the SDK snippet or a named fragment');
  const snippet = tsBlocks.find((b) => b.section === SNIPPET_SECTION)!.text;
  assert.ok(README.includes(`\`${SNIPPET_FILE}\``), `the README names the snippet's file, ${SNIPPET_FILE}`);

  const port = await freePort();
  const at = (text: string) => text.replaceAll('127.0.0.1:4170', `127.0.0.1:${port}`);
  const tmp = tempDir('berth-readme-');
  const home = join(tmp, 'home');
  const clone = join(home, 'berth');
  mkdirSync(clone, { recursive: true });
  copyCheckout(clone);
  const model = await startScriptedModel({ port: 0 });
  const env = terminalEnv(home, model.url, port);
  const shell = new ShellSession(clone, env);
  const background: Background[] = [];
  const ran = new Map<string, string>();
  let built = false;
  try {
    assert.equal((await shell.run(npxFunction(false))).code, 0);
    for (const block of blocks.filter((b) => b.lang === 'sh' && !(b.section in NOT_RUN))) {
      for (const typed of commandsOf(block.text)) {
        const command = at(typed);
        const cwd = (await shell.run('pwd')).output.trim();
        if (command === 'npm ci') {
          assert.ok(existsSync(join(cwd, 'node_modules', '.package-lock.json')), 'the dependencies npm ci installs are there');
          if (!built) {
            const build = await shell.run('npm run build');
            assert.equal(build.code, 0, `npm ci's prepare step failed:\n${build.output}`);
            built = true;
          }
          continue;
        }
        if (command === 'npm test') continue; // this very suite
        const install = /^npm install (.+)$/.exec(command);
        if (install) {
          linkInstalled(cwd, install[1]!.split(/\s+/));
          continue;
        }
        if (command.includes(SNIPPET_FILE)) writeFileSync(join(cwd, SNIPPET_FILE), at(snippet));
        if (isLongRunning(command)) {
          const serve = /^npx berth serve\b/.test(command);
          const started = await startBackground(
            serve ? `${command} --port ${port}` : command,
            cwd,
            env,
            serve ? /berth listening on \S+\n.*\n/ : /notes app connected\n/,
          );
          background.push(started);
          ran.set(typed, started.ready);
          continue;
        }
        // One command through the real npx, to show `npx berth` finds this package without a download.
        const real = command === 'npx berth serve --help' ? `command ${command}` : command;
        const result = await shell.run(real);
        assert.equal(result.code, 0, `\`${typed}\` (in ${block.section}) failed:\n${result.output}`);
        ran.set(typed, result.output);
      }
    }

    // What each step showed, as the README says it would.
    const serveLine = ran.get('npx berth serve')!;
    assert.match(serveLine, new RegExp(`berth listening on http://127\\.0\\.0\\.1:${port}\\n`));
    assert.match(serveLine, /model services: env \(model scripted-model, default\)/);
    const base = `http://127.0.0.1:${port}`;
    const landing = await fetch(`${base}/`);
    assert.equal(landing.status, 200);
    assert.equal(((await landing.json()) as { name: string }).name, 'berth');
    assert.match(await (await fetch(`${base}/`, { headers: { accept: 'text/html' } })).text(), /<h1>Berth /);
    assert.match(ran.get('npx berth serve --help')!, /OPENAI_BASE_URL[\s\S]*config\.json/);
    assert.match(ran.get('npx tsx summarise.mts')!, /stopReason end_turn/);
    assert.match(ran.get('npx berth msg list --session "$SESSION"')!, /^You are tab \d+ in workspace/);
    assert.match(ran.get('npx berth msg send --session "$SESSION" --tab all --kind task "Please run the tests and report back."')!, /tab/);
    const tokenFile = join(clone, 'notes.token');
    assert.equal(statSync(tokenFile).mode & 0o777, 0o600);
    assert.match(readFileSync(tokenFile, 'utf8'), /^berth_app_\S+\n$/);
    assert.doesNotMatch(ran.get('npx berth token create --app notes --max-policy write --out notes.token')!, /berth_app_/);
    assert.ok(ran.has('node --import tsx examples/notes-app.ts --url http://127.0.0.1:4170 --token-file notes.token'));
    // What `npm ci` built answers `import('berth')` (the package's "." export), from the copy itself.
    const imported = await shell.run(`cd ${JSON.stringify(clone)} && node --input-type=module -e "const m = await import('berth'); console.log(typeof m.connect)"`);
    assert.equal(imported.output.trim(), 'function', imported.output);
  } finally {
    for (const b of background.reverse()) {
      if (b.child.exitCode === null && b.child.signalCode === null) b.child.kill('SIGTERM');
      const code = await b.exited;
      assert.equal(code, 0, `${b.command} did not stop cleanly`);
    }
    await shell.close();
    await model.close();
    removeDir(tmp);
  }
});
