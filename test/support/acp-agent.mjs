// A small ACP agent for Berth's tests (issue 12), built on the SDK's agent builder.
// It does what its prompt says, one command per prompt:
//   say TEXT · write PATH TEXT · read PATH · run COMMAND · wait · die · model? · env
//   malformed · other-session · outside · history? · seed? (whether the prompt carried an earlier conversation)
//   mcp? (the MCP servers its session/new or session/load carried, as JSON; http ones taken when ACP_TEST_MCP_HTTP=1)
//   huge BYTES (one session/update line of about that many bytes)
//   tabs list · tabs send TAB TEXT · tabs token (says its process's module token) (the module protocol, from BERTH_MODULE_* and the tab named in session/new's _meta)
// A message another tab hands it as a prompt ("[Message from …") is answered "got: " and the message.
// Sessions are kept as JSON files under $HOME so `session/load` works in a later process.
import * as acp from '@agentclientprotocol/sdk';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';

const home = process.env.HOME ?? '/tmp';
const sessionsDir = join(home, 'sessions');
mkdirSync(sessionsDir, { recursive: true });
const MODELS = [
  { modelId: 'fast', name: 'Fast' },
  { modelId: 'smart', name: 'Smart' },
];

const fileOf = (id) => join(sessionsDir, `${id}.json`);
const loadState = (id) => JSON.parse(readFileSync(fileOf(id), 'utf8'));
const saveState = (id, state) => writeFileSync(fileOf(id), JSON.stringify(state));

async function say(client, sessionId, text) {
  await client.notify('session/update', { sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } });
}

async function toolCall(client, sessionId, toolCallId, kind, title, path) {
  await client.notify('session/update', {
    sessionId,
    update: { sessionUpdate: 'tool_call', toolCallId, title, kind, status: 'pending', ...(path ? { locations: [{ path }] } : {}) },
  });
}

async function finishTool(client, sessionId, toolCallId, status, text) {
  await client.notify('session/update', {
    sessionId,
    update: { sessionUpdate: 'tool_call_update', toolCallId, status, content: [{ type: 'content', content: { type: 'text', text } }] },
  });
}

async function ask(client, sessionId, toolCallId, kind, title) {
  const answer = await client.request('session/request_permission', {
    sessionId,
    toolCall: { toolCallId, title, kind, status: 'pending' },
    options: [
      { optionId: 'yes', name: 'Yes', kind: 'allow_once' },
      { optionId: 'yes-always', name: 'Always', kind: 'allow_always' },
      { optionId: 'no', name: 'No', kind: 'reject_once' },
    ],
  });
  return answer.outcome.outcome === 'selected' && answer.outcome.optionId.startsWith('yes');
}

/** One question on the workspace's module socket, one answer line back (docs/modules.md). */
function askModule(question) {
  return new Promise((resolve, reject) => {
    const socket = createConnection(process.env.BERTH_MODULE_SOCKET ?? '');
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${JSON.stringify({ token: process.env.BERTH_MODULE_TOKEN, ...question })}\n`));
    socket.on('data', (d) => (answer += d));
    socket.on('end', () => resolve(JSON.parse(answer)));
    socket.on('error', reject);
  });
}

const errorText = (err) => `${err.code ?? ''} ${err.message}`.trim();
let calls = 0;
const cancelled = new Map();

async function runCommand(client, sessionId, cwd, text, signal) {
  const [verb, ...rest] = text.trim().split(' ');
  const arg = rest.join(' ');
  const id = `call-${++calls}`;
  switch (verb) {
    case 'say':
      await say(client, sessionId, arg);
      return 'end_turn';
    case 'write': {
      const [path, ...words] = rest;
      const abs = path.startsWith('/') ? path : join(cwd, path);
      await toolCall(client, sessionId, id, 'edit', `Write ${path}`, abs);
      if (!(await ask(client, sessionId, id, 'edit', `Write ${path}`))) {
        await finishTool(client, sessionId, id, 'failed', 'rejected');
        await say(client, sessionId, 'not written');
        return 'end_turn';
      }
      try {
        await client.request('fs/write_text_file', { sessionId, path: abs, content: words.join(' ') });
        await finishTool(client, sessionId, id, 'completed', 'written');
        await say(client, sessionId, 'written');
      } catch (err) {
        await finishTool(client, sessionId, id, 'failed', errorText(err));
        await say(client, sessionId, `write failed: ${errorText(err)}`);
      }
      return 'end_turn';
    }
    case 'read':
    case 'outside': {
      const abs = verb === 'outside' ? '/etc/hostname' : join(cwd, arg);
      try {
        const { content } = await client.request('fs/read_text_file', { sessionId, path: abs });
        await say(client, sessionId, `content: ${content}`);
      } catch (err) {
        await say(client, sessionId, `read failed: ${errorText(err)}`);
      }
      return 'end_turn';
    }
    case 'run': {
      await toolCall(client, sessionId, id, 'execute', `Run ${arg}`);
      if (!(await ask(client, sessionId, id, 'execute', `Run ${arg}`))) {
        await finishTool(client, sessionId, id, 'failed', 'rejected');
        await say(client, sessionId, 'not run');
        return 'end_turn';
      }
      const { terminalId } = await client.request('terminal/create', { sessionId, command: 'sh', args: ['-c', arg] });
      const exit = await client.request('terminal/wait_for_exit', { sessionId, terminalId });
      const { output } = await client.request('terminal/output', { sessionId, terminalId });
      await client.request('terminal/release', { sessionId, terminalId });
      await finishTool(client, sessionId, id, 'completed', output);
      await say(client, sessionId, `exit ${exit.exitCode}: ${output.trim()}`);
      return 'end_turn';
    }
    case 'wait':
      await say(client, sessionId, 'waiting');
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      return 'cancelled';
    case 'die':
      await say(client, sessionId, 'dying');
      await sleep(20);
      process.exit(3);
      break;
    case 'model?':
      await say(client, sessionId, `model ${loadState(sessionId).model}`);
      return 'end_turn';
    case 'env':
      await say(client, sessionId, `HOME=${process.env.HOME} berth=${Object.keys(process.env).filter((k) => k.startsWith('BERTH_')).join(',')} secret=${process.env.SECRET_KEY ?? ''}`);
      return 'end_turn';
    case 'tabs': {
      const [op, tab, ...words] = rest;
      if (op === 'token') {
        await say(client, sessionId, process.env.BERTH_MODULE_TOKEN ?? '');
        return 'end_turn';
      }
      const session = loadState(sessionId).tab;
      const question = op === 'send' ? { op, tab, kind: 'task', text: words.join(' '), session } : { op, session };
      try {
        const answer = await askModule(question);
        const tabs = answer.tabs ? ` tabs: ${answer.tabs.map((t) => `${t.tab}=${t.harness}`).join(',')} you: ${answer.you?.tab}` : '';
        await say(client, sessionId, `module ${answer.ok ? 'ok' : 'refused'}: ${answer.text}${tabs}`);
      } catch (err) {
        await say(client, sessionId, `module failed: ${err.message}`);
      }
      return 'end_turn';
    }
    case 'mcp?':
      await say(client, sessionId, JSON.stringify(loadState(sessionId).mcpServers));
      return 'end_turn';
    case 'huge':
      await say(client, sessionId, 'x'.repeat(Number(arg)));
      await say(client, sessionId, 'still here');
      return 'end_turn';
    case 'history?':
      await say(client, sessionId, `history ${loadState(sessionId).prompts.join(' | ')}`);
      return 'end_turn';
    case 'malformed': {
      process.stdout.write('this is not json\n');
      process.stdout.write('{"jsonrpc":"2.0","id":"x","method":\n');
      let unknown = 'answered';
      try {
        await client.request('berth/not_a_method', {});
      } catch (err) {
        unknown = errorText(err);
      }
      let bad = 'answered';
      try {
        await client.request('fs/read_text_file', { sessionId, path: 42 });
      } catch (err) {
        bad = errorText(err);
      }
      await say(client, sessionId, `survived; unknown: ${unknown}; bad params: ${bad}`);
      return 'end_turn';
    }
    case 'other-session':
      await client.notify('session/update', { sessionId: 'not-this-one', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'leaked' } } });
      try {
        await client.request('fs/read_text_file', { sessionId: 'not-this-one', path: join(cwd, 'a.txt') });
        await say(client, sessionId, 'read for another session: answered');
      } catch (err) {
        await say(client, sessionId, `read for another session: ${errorText(err)}`);
      }
      return 'end_turn';
    default:
      await say(client, sessionId, `unknown command ${verb}`);
      return 'end_turn';
  }
}

const startDelay = Number(process.env.ACP_TEST_START_DELAY_MS ?? 0);

acp
  .agent({ name: 'berth-test-agent' })
  .onRequest('initialize', async () => {
    if (startDelay > 0) await sleep(startDelay);
    return { protocolVersion: acp.PROTOCOL_VERSION, agentCapabilities: { loadSession: process.env.ACP_TEST_NO_LOAD !== '1', mcpCapabilities: { http: process.env.ACP_TEST_MCP_HTTP === '1' } } };
  })
  .onRequest('session/new', ({ params, client }) => {
    const sessionId = `agent-${Date.now()}-${Math.random().toString(16).slice(2)}`;
    saveState(sessionId, { cwd: params.cwd, model: 'fast', prompts: [], tab: params._meta?.berth?.session, mcpServers: params.mcpServers });
    // As qwen does: the commands it offers, announced once the session exists (outside any turn).
    setImmediate(() => {
      const commands = [{ name: 'say', description: 'say something', input: { hint: 'text' } }];
      void client.notify('session/update', { sessionId, update: { sessionUpdate: 'available_commands_update', availableCommands: commands } });
    });
    return { sessionId, models: { currentModelId: 'fast', availableModels: MODELS } };
  })
  .onRequest('session/load', ({ params }) => {
    if (!existsSync(fileOf(params.sessionId))) throw acp.RequestError.resourceNotFound(params.sessionId);
    const state = loadState(params.sessionId);
    saveState(params.sessionId, { ...state, tab: params._meta?.berth?.session ?? state.tab, mcpServers: params.mcpServers });
    return { models: { currentModelId: state.model, availableModels: MODELS } };
  })
  .onRequest('session/set_model', (p) => p, ({ params }) => {
    const state = loadState(params.sessionId);
    saveState(params.sessionId, { ...state, model: params.modelId });
    return {};
  })
  .onRequest('session/prompt', async ({ params, client }) => {
    const state = loadState(params.sessionId);
    const text = params.prompt.filter((b) => b.type === 'text').map((b) => b.text).at(-1) ?? '';
    saveState(params.sessionId, { ...state, prompts: [...state.prompts, text.split('\n')[0]] });
    if (text === 'seed?') {
      const earlier = params.prompt.filter((b) => b.type === 'text').slice(0, -1).map((b) => b.text).join('\n');
      await say(client, params.sessionId, `seeded: ${earlier.includes('say before') ? 'yes' : 'no'}`);
      return { stopReason: 'end_turn' };
    }
    if (text.startsWith('[Message from')) {
      await say(client, params.sessionId, `got: ${text}`);
      return { stopReason: 'end_turn' };
    }
    const abort = new AbortController();
    cancelled.set(params.sessionId, abort);
    try {
      const stopReason = await runCommand(client, params.sessionId, state.cwd, text, abort.signal);
      return { stopReason };
    } finally {
      cancelled.delete(params.sessionId);
    }
  })
  .onNotification('session/cancel', ({ params }) => cancelled.get(params.sessionId)?.abort())
  .connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
