import type { ContentBlock } from '../../agents/driver.js';
import { MAX_PROMPT_MEDIA_BLOCKS } from '../limits.js';
import type { Core } from '../../core.js';
import type { Session } from '../../sessions/session.js';
import { BerthError } from '../../protocol/errors/index.js';
import { pendingPrompts } from '../views/status.js';
import { clientIdOf } from '../client-id.js';
import type { HttpModule } from '../module.js';
import { objectBody, param } from '../params.js';


interface PromptBody {
  prompt: ContentBlock[];
  deadlineMs?: number;
}

/**
 * docs/client-api.md §6.1 validation, in the order qwen applies it, each with its code:
 * `invalid_prompt`, `invalid_deadline_ms`, `invalid_event_detail_mode`, `channel_delivery_invalid`.
 */
function parsePrompt(body: unknown): PromptBody {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new BerthError('invalid_prompt');
  const b = body as Record<string, unknown>;
  const prompt = b.prompt;
  if (!Array.isArray(prompt) || prompt.length === 0) throw new BerthError('invalid_prompt');
  let media = 0;
  for (const [i, block] of prompt.entries()) {
    if (!block || typeof block !== 'object' || Array.isArray(block) || typeof (block as { type?: unknown }).type !== 'string') {
      throw new BerthError('invalid_prompt', `prompt[${i}] must be a content block object with a string \`type\``, {
        field: `prompt.${i}`,
      });
    }
    const t = block as Record<string, unknown>;
    if (t.type === 'text' && typeof t.text !== 'string') {
      throw new BerthError('invalid_prompt', `prompt[${i}] is a text block without a string \`text\``, { field: `prompt.${i}.text` });
    }
    if (t.type !== 'text' && ++media > MAX_PROMPT_MEDIA_BLOCKS) {
      throw new BerthError('invalid_prompt', `a prompt may hold at most ${MAX_PROMPT_MEDIA_BLOCKS} non-text blocks`);
    }
  }
  if (b.deadlineMs !== undefined && (!Number.isSafeInteger(b.deadlineMs) || (b.deadlineMs as number) < 1)) {
    throw new BerthError('invalid_deadline_ms', '`deadlineMs` must be a positive integer', { field: 'deadlineMs' });
  }
  if (b.eventDetailMode !== undefined && b.eventDetailMode !== 'full' && b.eventDetailMode !== 'summary') {
    throw new BerthError('invalid_event_detail_mode');
  }
  if (b.delivery !== undefined) {
    // Berth has no outbound delivery channels (qwen's channel feature), so no target is valid.
    throw new BerthError('channel_delivery_invalid', 'Invalid channel delivery: this daemon has no delivery channels.');
  }
  return { prompt: prompt as ContentBlock[], ...(b.deadlineMs !== undefined ? { deadlineMs: b.deadlineMs as number } : {}) };
}

/** Withdraws one queued or running prompt (docs/client-api.md §6.5); false when no unsettled prompt has this id. */
export function withdrawPrompt(session: Pick<Session, 'cancel' | 'pendingPrompts'>, clientId: string | undefined, promptId: string): boolean {
  if (!session.pendingPrompts().some((e) => e.promptId === promptId && !e.settled)) return false;
  session.cancel(clientId, promptId);
  return true;
}

/** OpenAPI tag "Prompts and events": admission, cancel, pending prompts (docs/client-api.md §6). */
export const promptsModule: HttpModule = {
  name: 'prompts',
  features: () => ['session_prompt', 'non_blocking_prompt', 'session_cancel'],
  register(app, core: Core) {
    const sessions = core.sessions;

    app.post('/session/:id/prompt', async (request, reply) => {
      const body = parsePrompt(objectBody(request));
      const clientId = clientIdOf(request);
      const session = await sessions.open(param(request, 'id'));
      session.clients.require(clientId);
      const accepted = await session.submit(body.prompt, {
        ...(clientId ? { clientId } : {}),
        ...(body.deadlineMs !== undefined ? { deadlineMs: body.deadlineMs } : {}),
      });
      return reply.code(202).send(accepted);
    });

    app.post('/session/:id/cancel', async (request, reply) => {
      const clientId = clientIdOf(request);
      const session = await sessions.open(param(request, 'id'));
      session.clients.require(clientId);
      session.cancel(clientId);
      return reply.code(204).send();
    });

    // docs/client-api.md §6.5: the contract's cancel reaches only the running prompt. qwen serve's answer, `{removed}`.
    app.delete('/session/:id/pending-prompts/:promptId', async (request) => {
      const clientId = clientIdOf(request);
      const session = await sessions.open(param(request, 'id'));
      session.clients.require(clientId);
      return { removed: withdrawPrompt(session, clientId, param(request, 'promptId')) };
    });

    app.get('/session/:id/pending-prompts', async (request) => {
      const clientId = clientIdOf(request);
      const session = await sessions.open(param(request, 'id'));
      session.clients.require(clientId);
      return { pendingPrompts: pendingPrompts(session) };
    });
  },
};
