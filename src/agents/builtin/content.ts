import type OpenAI from 'openai';
import type { ContentBlock } from '../driver.js';
import type { ToolContent, ToolOutcome } from '../../tools/types.js';

type UserPart = OpenAI.Chat.ChatCompletionContentPart;
export type ImagePart = OpenAI.Chat.ChatCompletionContentPartImage;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export function imagePart(data: string, mimeType: string): ImagePart {
  return { type: 'image_url', image_url: { url: `data:${mimeType};base64,${data}` } };
}

/** One ACP content block (docs/client-api.md §8.1 ContentBlock) as chat-completion user content. */
function partOf(block: ContentBlock): UserPart | undefined {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: str(block.text) ?? '' };
    case 'image': {
      const data = str(block.data);
      const mimeType = str(block.mimeType) ?? 'image/png';
      if (data) return imagePart(data, mimeType);
      const uri = str(block.uri);
      return uri ? { type: 'image_url', image_url: { url: uri } } : undefined;
    }
    case 'resource_link':
      return { type: 'text', text: `[resource ${str(block.name) ?? ''}: ${str(block.uri) ?? ''}]` };
    case 'resource': {
      const r = (block.resource ?? {}) as Record<string, unknown>;
      const uri = str(r.uri) ?? '';
      const text = str(r.text);
      return { type: 'text', text: text !== undefined ? `<resource uri="${uri}">\n${text}\n</resource>` : `[binary resource ${uri} omitted]` };
    }
    default:
      // Audio and unknown blocks cannot go to a chat-completions model; say so instead of dropping them silently.
      return { type: 'text', text: `[${block.type} content omitted]` };
  }
}

/** A prompt as the `content` of a user message: plain text when it is only text (every server takes that), else parts. */
export function userContent(blocks: readonly ContentBlock[]): string | UserPart[] {
  const parts = blocks.map(partOf).filter((p): p is UserPart => p !== undefined);
  if (parts.every((p) => p.type === 'text')) return parts.map((p) => (p as { text: string }).text).join('\n');
  return parts;
}

/** What a tool outcome tells the model: text for the `tool` message, images for a following user message. */
export function toolResultForModel(outcome: ToolOutcome): { text: string; images: ToolContent[] } {
  if (!outcome.ok) {
    return { text: JSON.stringify({ error: outcome.error }), images: [] };
  }
  const content = outcome.result.content ?? [];
  const texts = content.filter((c): c is Extract<ToolContent, { type: 'text' }> => c.type === 'text').map((c) => c.text);
  const images = content.filter((c) => c.type === 'image');
  const value = outcome.result.value;
  const text = texts.length > 0 ? texts.join('\n') : typeof value === 'string' ? value : JSON.stringify(value ?? null);
  return { text, images };
}
