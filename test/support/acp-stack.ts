import { fileURLToPath } from 'node:url';
import { DEFAULT_AGENT_IDLE_MS, DEFAULT_AGENT_MAX_MESSAGE_BYTES, type AgentSettings, type AgentSpec } from '../../src/config/agents.js';
import type { TestDaemonOptions } from './daemon.js';

/** The small ACP agent of the test suite (test/support/acp-agent.mjs), run by this Node. */
export const TEST_AGENT_SCRIPT = fileURLToPath(new URL('./acp-agent.mjs', import.meta.url));
export const TEST_AGENT_ID = 'tester';

/** The idle time and message bound a daemon runs with unless a test sets its own. */
export const AGENT_BOUNDS = { idleMs: DEFAULT_AGENT_IDLE_MS, maxMessageBytes: DEFAULT_AGENT_MAX_MESSAGE_BYTES } as const;

export function testAgentSpec(overrides: Partial<AgentSpec> = {}): AgentSpec {
  return { id: TEST_AGENT_ID, command: process.execPath, args: [TEST_AGENT_SCRIPT], env: {}, cwdMode: 'workspace', ...overrides };
}

/** Daemon options offering the test agent (and others given), with room for a loaded machine to start it. */
export function withAgents(options: Partial<AgentSettings> = {}, daemon: TestDaemonOptions = {}): TestDaemonOptions {
  const agents: AgentSettings = { agents: [testAgentSpec()], defaultAgent: null, startTimeoutMs: 60_000, memoryMb: null, ...AGENT_BOUNDS, ...options };
  return { ...daemon, config: { ...daemon.config, agents } };
}
