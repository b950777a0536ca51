import type { Tool } from '../types.js';
import { requiredString } from './args.js';
import { seedToolDefinition } from './seed-tools.js';

/**
 * `workspace_ask` (docs/gateway.md): a question for the owner. How it reaches a person
 * is the permission hook's business (`ctx.ask`); an unanswered question
 * rejects with that hook's BerthError, which propagates unchanged.
 */
export function workspaceAskTool(): Tool {
  return {
    ...seedToolDefinition('workspace_ask', { policy: 'read', category: 'interaction' }),
    async run(args, ctx) {
      const question = requiredString(args, 'question');
      const answer = await ctx.ask({ callId: ctx.callId, question });
      return { value: { answer } };
    },
  };
}
