import { fileURLToPath } from 'node:url';
import type { AgentSettings, AgentSpec } from '../../src/config/agents.js';
import type { TestDaemonOptions } from './daemon.js';

/** The small ACP agent of the test suite (test/support/acp-agent.mjs), run by this Node. */
export const TEST_AGENT_SCRIPT = fileURLToPath(new URL('./acp-agent.mjs', import.meta.url));
export const TEST_AGENT_ID = 'tester';

export function testAgentSpec(overrides: Partial<AgentSpec> = {}): AgentSpec {
  return { id: TEST_AGENT_ID, command: process.execPath, args: [TEST_AGENT_SCRIPT], env: {}, cwdMode: 'workspace', ...overrides };
}

/** Daemon options offering the test agent (and others given), with room for a loaded machine to start it. */
export function withAgents(options: Partial<AgentSettings> = {}, daemon: TestDaemonOptions = {}): TestDaemonOptions {
  const agents: AgentSettings = { agents: [testAgentSpec()], defaultAgent: null, startTimeoutMs: 60_000, memoryMb: null, ...options };
  return { ...daemon, config: { ...daemon.config, agents } };
}
