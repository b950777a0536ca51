import { randomUUID } from 'node:crypto';
import type { Core } from '../../core.js';
import { BerthError } from '../../protocol/errors/index.js';
import { applicationError } from '../../protocol/toolproto/outcomes.js';
import { MAX_EXEC_WAIT_MS } from '../../tools/limits.js';
import { clientIdOf } from '../client-id.js';
import type { HttpModule } from '../module.js';
import { objectBody, param } from '../params.js';

/** What `workspace_exec` answers when it waited for the command (tools/builtin/exec.ts). */
interface ExecValue {
  readonly commandId?: string;
  readonly running?: boolean;
  readonly exitCode?: number | null;
  readonly output?: string;
}

/**
 * The Web Shell's `!command` (qwen serve's `POST /session/{id}/shell`): Berth runs it as the
 * session's own `workspace_exec` call, outside any turn (sessions/outside-call.ts), so it meets
 * the same guard as the agent's commands: refused in plan mode, a permission request on the
 * stream when the approval mode asks, confinement to the workspace, a receipt, and the
 * `tool_call` events every client sees. The answer is qwen's `{exitCode, output}`; a command
 * still running after the longest wait goes on and is read with `workspace_poll` (`commandId`).
 */
export const webShellShellModule: HttpModule = {
  name: 'webshell-shell',
  features: () => [],
  register(app, core: Core) {
    app.post('/session/:id/shell', async (request, reply) => {
      const body = objectBody(request) as Record<string, unknown>;
      const command = typeof body?.command === 'string' ? body.command.trim() : '';
      if (command === '') throw new BerthError('invalid_shell_command', undefined, { field: 'command' });
      const clientId = clientIdOf(request);
      const session = await core.sessions.open(param(request, 'id'));
      session.clients.require(clientId);
      session.touch();
      // The person gave up on the answer: a pending permission request resolves as cancelled and the command stops.
      const abort = new AbortController();
      reply.raw.once('close', () => reply.raw.writableEnded || abort.abort());
      const call = { toolCallId: `shell_${randomUUID()}`, name: 'workspace_exec', args: { command, waitMs: MAX_EXEC_WAIT_MS } };
      const outcome = await session.callTool(call, { signal: abort.signal, ...(clientId ? { clientId } : {}) });
      if (!outcome.ok) throw applicationError(outcome.error);
      const value = outcome.result.value as ExecValue;
      if (value.running) return { exitCode: null, output: value.output ?? '', running: true, commandId: value.commandId };
      return { exitCode: value.exitCode ?? null, output: value.output ?? '' };
    });
  },
};
