import type { ContentBlock } from '../../agents/driver.js';
import type { Core } from '../../core.js';
import { BerthError } from '../../protocol/errors/index.js';
import { clientIdOf } from '../client-id.js';
import { MAX_PROMPT_MEDIA_BLOCKS } from '../limits.js';
import type { HttpModule } from '../module.js';
import { objectBody, param } from '../params.js';
import { withdrawPrompt } from '../routes/prompts.js';

/** qwen serve's bound on a mid-turn message's text, after trimming. */
const MAX_MID_TURN_TEXT = 16 * 1024;
/** qwen serve's bound on a client-chosen message id. */
const MAX_MESSAGE_ID = 128;

interface MidTurnBody {
  readonly text: string;
  readonly media: readonly ContentBlock[];
  readonly messageId?: string;
}

const bad = (message: string, field: string) => new BerthError('invalid_mid_turn_message', message, { field });

/**
 * One media block as qwen serve takes it inline: an image with base64 `data` and an `image/*` type (not SVG),
 * or an embedded resource with a `uri` and either `text` or `blob`. Berth keeps no uploaded attachments,
 * so a block naming an `attachmentId` is refused.
 */
function mediaBlock(block: unknown, i: number): ContentBlock {
  const field = `content.${i}`;
  if (!block || typeof block !== 'object' || Array.isArray(block)) throw bad(`content[${i}] must be a media block object`, field);
  const b = block as Record<string, unknown>;
  if (b.attachmentId !== undefined) throw bad(`content[${i}] names an attachment; this daemon takes media inline only`, field);
  if (b.type === 'image') {
    const mime = b.mimeType;
    if (typeof b.data !== 'string' || b.data === '' || typeof mime !== 'string' || !mime.startsWith('image/') || mime.startsWith('image/svg')) {
      throw bad(`content[${i}] must be an image with base64 \`data\` and a non-SVG \`image/*\` \`mimeType\``, field);
    }
    return b as ContentBlock;
  }
  if (b.type === 'resource') {
    const r = b.resource as Record<string, unknown> | null | undefined;
    const ok = !!r && typeof r === 'object' && typeof r.uri === 'string' && r.uri !== '' && (typeof r.text === 'string') !== (typeof r.blob === 'string');
    if (!ok) throw bad(`content[${i}] must be a resource with a \`uri\` and either \`text\` or \`blob\``, field);
    return b as ContentBlock;
  }
  throw bad(`content[${i}] must be an image or resource block`, field);
}

/** The checks of qwen serve's `POST /session/:id/mid-turn-message`, in its order, as Berth's error codes. */
function parseMidTurn(body: unknown): MidTurnBody {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw bad('the body must be a JSON object', 'message');
  const b = body as Record<string, unknown>;
  if (b.eventDetailMode !== undefined && b.eventDetailMode !== 'full' && b.eventDetailMode !== 'summary') throw new BerthError('invalid_event_detail_mode');
  const text = typeof b.message === 'string' ? b.message.trim() : '';
  let media: ContentBlock[] = [];
  if (b.content !== undefined) {
    if (!Array.isArray(b.content) || b.content.length === 0) throw bad('`content` must be a non-empty array of media blocks', 'content');
    if (b.content.length > MAX_PROMPT_MEDIA_BLOCKS) throw bad(`\`content\` must carry at most ${MAX_PROMPT_MEDIA_BLOCKS} media blocks`, 'content');
    media = b.content.map(mediaBlock);
  }
  if (text === '' && media.length === 0) throw bad('`message` must be a non-empty string, or `content` must carry at least one media block', 'message');
  if (text.length > MAX_MID_TURN_TEXT) throw bad(`\`message\` must be at most ${MAX_MID_TURN_TEXT} characters`, 'message');
  const id = b.messageId;
  if (id !== undefined && (typeof id !== 'string' || id.length === 0 || id.length > MAX_MESSAGE_ID)) {
    throw new BerthError('invalid_message_id', undefined, { field: 'messageId' });
  }
  return { text, media, ...(typeof id === 'string' ? { messageId: id } : {}) };
}

/**
 * qwen serve's mid-turn messages (README, "The qwen Web Shell against Berth"): what a person types while a
 * turn runs joins that turn before its next model request (sessions/mid-turn.ts). Mutations like a prompt:
 * the same owner scope, the client id checked, and in a cluster forwarded to the session's node.
 */
export const webShellMidTurnModule: HttpModule = {
  name: 'webshell-mid-turn',
  features: () => ['session_mid_turn_message_mutation', 'session_mid_turn_message_query'],
  register(app, core: Core) {
    app.post('/session/:id/mid-turn-message', async (request) => {
      const body = parseMidTurn(objectBody(request));
      const clientId = clientIdOf(request);
      const session = await core.sessions.open(param(request, 'id'));
      session.clients.require(clientId);
      session.touch();
      return session.midTurn.enqueue({ ...body, ...(clientId ? { clientId } : {}) });
    });

    app.delete('/session/:id/mid-turn-messages/:messageId', async (request) => {
      const clientId = clientIdOf(request);
      const session = await core.sessions.open(param(request, 'id'));
      session.clients.require(clientId);
      const messageId = param(request, 'messageId');
      // One already run as a prompt of its own is withdrawn like a queued prompt, as qwen serve does.
      const promoted = session.midTurn.snapshot().promotedMessageIds.includes(messageId);
      const queuedPrompt = session.pendingPrompts().some((e) => e.promptId === messageId && e.state === 'queued');
      return { removed: session.midTurn.remove(messageId) || (promoted && queuedPrompt && withdrawPrompt(session, clientId, messageId)) };
    });

    app.get('/session/:id/mid-turn-messages', async (request) => {
      const clientId = clientIdOf(request);
      const session = await core.sessions.open(param(request, 'id'));
      session.clients.require(clientId);
      return session.midTurn.snapshot();
    });
  },
};
