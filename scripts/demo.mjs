#!/usr/bin/env node
/**
 * `npm run demo`: a full turn with no API key. Starts the project's scripted
 * model and a Berth daemon on a throw-away workspace, then drives the daemon
 * with the official @qwen-code/sdk client the way any client would: create a
 * session, subscribe, prompt, answer the permission requests, show the file.
 *
 *   npm run demo                  # port 4170 (or a free one when taken)
 *   npm run demo -- --port 0      # any free port
 *   npm run demo -- --yes         # approve without asking, even on a terminal
 *   npm run demo -- --keep        # keep the temp workspace and home afterwards
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { DaemonClient, DaemonSessionClient } from '@qwen-code/sdk/daemon';
import { Children, cleanEnv, entryPoints, portOrFree } from './demo/children.mjs';
import { DEMO_FILE, DEMO_PROMPT, DEMO_STEPS } from './demo/model-script.mjs';
import { EventPrinter, bold, dim } from './demo/render.mjs';

const { values: opts } = parseArgs({
  options: {
    port: { type: 'string', default: '4170' },
    yes: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
});
const preferredPort = Number(opts.port);
if (!Number.isInteger(preferredPort) || preferredPort < 0 || preferredPort > 65535) {
  console.error(`demo: --port takes 0-65535, got ${opts.port}`);
  process.exit(2);
}
const interactive = process.stdin.isTTY === true && !opts.yes;

const children = new Children();
const root = mkdtempSync(join(tmpdir(), 'berth-demo-'));
const home = join(root, 'home');
const workspace = join(root, 'workspace');
const stop = new AbortController();
const printer = new EventPrinter();
let prompter;
let finishing;

/** The one teardown: stop reading, stop both children, remove the temp folder, exit. */
function finish(code) {
  finishing ??= (async () => {
    stop.abort();
    prompter?.close();
    await children.stop();
    if (opts.keep) console.log(dim(`kept ${root}`));
    else rmSync(root, { recursive: true, force: true });
    console.log(dim(`demo finished: child processes stopped${opts.keep ? '' : ', temp folder removed'}`));
    process.exit(code);
  })();
  return finishing;
}

function onSignal(signal) {
  printer.line(dim(`\n${signal}: stopping the demo…`));
  void finish(signal === 'SIGINT' ? 130 : 143);
}
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

/** Answers one permission request: on a terminal, the person decides; otherwise allow once, out loud. */
async function answer(request) {
  const options = request.data.options;
  const byKind = (kind) => options.find((o) => o.kind === kind)?.optionId;
  if (!interactive) {
    printer.line(dim('  auto-approved once (stdin is not a terminal, or --yes); run `npm run demo` in a terminal to decide yourself'));
    return { outcome: 'selected', optionId: byKind('allow_once') };
  }
  if (!prompter) {
    prompter = createInterface({ input: process.stdin, output: process.stdout });
    // On a terminal readline takes Ctrl-C itself; pass it on to the one teardown.
    prompter.on('SIGINT', () => onSignal('SIGINT'));
  }
  for (;;) {
    const reply = (await prompter.question(bold('  allow? [y]es once, [a]lways in this session, [n]o › '))).trim().toLowerCase();
    if (reply === 'y' || reply === 'yes' || reply === '') return { outcome: 'selected', optionId: byKind('allow_once') };
    if (reply === 'a') return { outcome: 'selected', optionId: byKind('allow_always') };
    if (reply === 'n' || reply === 'no') return { outcome: 'selected', optionId: byKind('reject_once') };
  }
}

async function run() {
  mkdirSync(home);
  mkdirSync(workspace);
  writeFileSync(join(workspace, 'README.md'), '# A throw-away workspace for `npm run demo`\n');
  const entry = entryPoints();
  console.log(bold('Berth demo') + dim(` — running ${entry.how}; no API key needed`));

  const model = await children.start('scripted model', [...entry.model, '--port', '0'], cleanEnv(), /scripted model listening on (\S+)/);
  const scripted = await fetch(`${model.value.replace(/\/v1\/?$/, '')}/__script`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ steps: DEMO_STEPS }),
  });
  if (!scripted.ok) throw new Error(`the scripted model refused the demo script: ${await scripted.text()}`);
  console.log(`${dim('scripted model ›')} ${model.value} ${dim(`(pid ${model.pid})`)}`);

  // The model service, as you would configure a real one in $BERTH_HOME/config.json.
  const service = { id: 'scripted', baseUrl: model.value, models: [{ id: 'scripted-model' }], defaultModel: 'scripted-model' };
  writeFileSync(join(home, 'config.json'), JSON.stringify({ modelServices: [service] }, null, 2));
  const port = await portOrFree(preferredPort);
  const berth = await children.start(
    'berth',
    [...entry.berth, 'serve', '--port', String(port), '--home', home, '--workspace', workspace],
    cleanEnv({ BERTH_LOG_LEVEL: 'warn' }),
    /berth listening on (\S+)/,
  );
  const baseUrl = berth.value;
  console.log(`${dim('berth ›')} ${bold(baseUrl)} ${dim(`(pid ${berth.pid}, workspace ${workspace})`)}`);
  console.log(dim(`  clients connect with: new DaemonClient({ baseUrl: '${baseUrl}' }) from @qwen-code/sdk/daemon\n`));

  const client = new DaemonClient({ baseUrl });
  const session = await DaemonSessionClient.createOrAttach(client, { workspaceCwd: workspace });
  console.log(`${dim('session ›')} ${session.sessionId} ${dim(`(approval mode: default — every write and command asks first)`)}`);

  let turnShown;
  const turnEnded = new Promise((resolve) => (turnShown = resolve));
  const events = (async () => {
    for await (const event of session.events({ signal: stop.signal })) {
      printer.show(event);
      if (event.type === 'turn_complete' || event.type === 'turn_error') turnShown();
      if (event.type === 'permission_request') {
        const outcome = await answer(event);
        await session.respondToSessionPermission(event.data.requestId, { outcome });
      }
    }
  })().catch((err) => {
    if (!stop.signal.aborted) throw err;
  });

  // prompt() settles as the SDK reads the terminal event, a moment before the loop above prints it.
  const result = await session.prompt({ prompt: [{ type: 'text', text: DEMO_PROMPT }] });
  await turnEnded;
  printer.line('');
  const file = await client.readWorkspaceFile(DEMO_FILE).catch(() => null);
  if (file) {
    console.log(`${bold(`${DEMO_FILE} in the workspace`)} ${dim('(read back through GET /file):')}`);
    for (const l of String(file.content).replace(/\n$/, '').split('\n')) console.log(`  │ ${l}`);
  } else {
    console.log(dim(`${DEMO_FILE} was not written (the write was not approved)`));
  }
  console.log(dim(`\nthe turn ended with stopReason ${result.stopReason}`));
  stop.abort();
  await events;
  await client.closeSession(session.sessionId, session.clientId);
}

try {
  await run();
  await finish(0);
} catch (err) {
  if (!finishing) {
    printer.line(`demo failed: ${err instanceof Error ? err.message : String(err)}`);
    await finish(1);
  }
}
