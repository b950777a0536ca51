import * as acp from '@agentclientprotocol/sdk';
import { CLIENT_CAPABILITIES } from './connection.js';

/**
 * One ACP exchange, in memory, between a client like Berth's and a stand-in
 * agent: `initialize`, `session/new`, a `session/prompt` with one
 * `session/update`. The SDK checks every message against schemas that are
 * built the first time each is used, which the first agent session would
 * otherwise wait for; run once in the background after the daemon listens.
 */
export async function rehearseAcp(): Promise<void> {
  const toAgent = new TransformStream<Uint8Array, Uint8Array>();
  const toClient = new TransformStream<Uint8Array, Uint8Array>();
  const sessionId = 'warm-up';
  const agent = acp
    .agent({ name: 'berth-warm-up' })
    .onRequest('initialize', () => ({ protocolVersion: acp.PROTOCOL_VERSION, agentCapabilities: { loadSession: true } }))
    .onRequest('session/new', () => ({ sessionId }))
    .onRequest('session/prompt', async ({ client }) => {
      await client.notify('session/update', { sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'ok' } } });
      return { stopReason: 'end_turn' as const };
    })
    .connect(acp.ndJsonStream(toClient.writable, toAgent.readable));
  const client = acp
    .client({ name: 'berth' })
    .onNotification('session/update', () => {})
    .connect(acp.ndJsonStream(toAgent.writable, toClient.readable));
  try {
    await client.agent.request('initialize', { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: CLIENT_CAPABILITIES, clientInfo: { name: 'berth', version: '1' } });
    const created = await client.agent.request('session/new', { cwd: '/', mcpServers: [] });
    await client.agent.request('session/prompt', { sessionId: created.sessionId, prompt: [{ type: 'text', text: 'hello' }] });
  } finally {
    client.close();
    agent.close();
  }
}
