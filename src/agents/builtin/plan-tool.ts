import type OpenAI from 'openai';
import type { SessionUpdate } from '../driver.js';

/**
 * The driver's own planning tool. It is not a workspace tool and never goes
 * through the executor: calling it replaces the session's plan (docs/client-api.md §8.1
 * `plan`, a full replacement each time) and is answered with "ok".
 */
export const PLAN_TOOL_NAME = 'update_plan';

const PRIORITIES = ['high', 'medium', 'low'];
const STATUSES = ['pending', 'in_progress', 'completed'];

export const PLAN_TOOL: OpenAI.Chat.ChatCompletionTool = {
  type: 'function',
  function: {
    name: PLAN_TOOL_NAME,
    description:
      'Share your plan for multi-step work with the people watching. Send the whole list each time (it replaces the previous one) and keep statuses current.',
    parameters: {
      type: 'object',
      additionalProperties: false,
      required: ['entries'],
      properties: {
        entries: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['content', 'priority', 'status'],
            properties: {
              content: { type: 'string', description: 'What this step does' },
              priority: { type: 'string', enum: PRIORITIES },
              status: { type: 'string', enum: STATUSES },
            },
          },
        },
      },
    },
  },
};

export interface PlanEntry {
  readonly content: string;
  readonly priority: string;
  readonly status: string;
}

/** Checks the arguments whole; returns the plan update or the reason it was refused. */
export function planUpdate(args: Record<string, unknown>): { update: SessionUpdate } | { error: string } {
  const entries = args.entries;
  if (!Array.isArray(entries)) return { error: 'entries must be an array' };
  const out: PlanEntry[] = [];
  for (const [i, e] of entries.entries()) {
    if (typeof e !== 'object' || e === null) return { error: `entries[${i}] must be an object` };
    const { content, priority, status } = e as Record<string, unknown>;
    if (typeof content !== 'string' || content === '') return { error: `entries[${i}].content must be a non-empty string` };
    if (typeof priority !== 'string' || !PRIORITIES.includes(priority)) return { error: `entries[${i}].priority must be high, medium or low` };
    if (typeof status !== 'string' || !STATUSES.includes(status)) return { error: `entries[${i}].status must be pending, in_progress or completed` };
    out.push({ content, priority, status });
  }
  return { update: { sessionUpdate: 'plan', entries: out } };
}
