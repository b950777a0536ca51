import { MODULE_MOST_TEXT } from '../protocol/limits.js';
import { BerthError, isErrorCode } from '../protocol/errors/index.js';
import type { Tool, ToolContext, ToolDefinition, ToolResult } from '../tools/types.js';
import { TABS_INBOX_TOOL, TABS_LIST_TOOL, TABS_SEND_TOOL } from './header.js';
import type { MessagingService } from './service.js';
import { ALL, KINDS, type Answer, type MessageKind, type Request } from './types.js';

/**
 * The module operations as tools of the built-in agent.
 * They run through the tool layer like any other tool — schema, the session's
 * guard, permission, receipts — and act as the session that calls them, so no
 * token is involved. `tabs_send` is `write` (it puts work in front of another
 * agent; a repeated call id replays the stored result instead of sending
 * twice); listing and reading the own inbox are `read`, so an agent in plan
 * mode still hears from the others.
 */
export function messagingTools(messaging: MessagingService): Tool[] {
  const runs: Record<string, Tool['run']> = {
    [TABS_LIST_TOOL]: (_args, ctx) => answer(messaging, ctx, { op: 'list' }),
    [TABS_SEND_TOOL]: (args, ctx) =>
      answer(messaging, ctx, {
        op: 'send',
        tab: String(args.tab),
        text: String(args.text),
        kind: (args.kind as MessageKind | undefined) ?? 'info',
      }),
    [TABS_INBOX_TOOL]: (_args, ctx) => answer(messaging, ctx, { op: 'inbox' }),
  };
  return MESSAGING_TOOL_DEFINITIONS.map((d) => ({ ...d, run: runs[d.name]! }));
}

/**
 * What an agent is told of each module operation. Shared by the built-in
 * agent's tools above and by `berth mcp`, which offers the same operations to
 * an agent Berth does not host.
 */
export const MESSAGING_TOOL_DEFINITIONS: readonly ToolDefinition[] = [
  {
    name: TABS_LIST_TOOL,
    title: 'List tabs',
    description:
      'List the other agent sessions ("tabs") of this workspace: their tab numbers, titles, harness, profile, network access, and how many messages wait for each. Also tells you which tab you are.',
    category: 'messaging',
    policy: 'read',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    annotations: { readOnlyHint: true },
  },
  {
    name: TABS_SEND_TOOL,
    title: 'Message a tab',
    description: `Send a message to another agent tab of this workspace, or to every other tab with "all". The kind says what you ask of the receiver: "question" (you wait for an answer), "task" (you wait for a report), "report" (the result of a task you were given), "answer" (the reply to a question you were asked), "info" (nothing expected; the default). At most ${MODULE_MOST_TEXT} characters: put long material in a workspace file and send its path. Messages reach an idle agent as its next prompt.`,
    category: 'messaging',
    policy: 'write',
    inputSchema: {
      type: 'object',
      properties: {
        tab: {
          type: ['string', 'integer'],
          description: `The receiving tab: its number from ${TABS_LIST_TOOL} (e.g. "3"), its title, or "${ALL}" for every other tab.`,
        },
        text: { type: 'string', description: 'The message.' },
        kind: { type: 'string', enum: [...KINDS], description: 'What you ask of the receiver; "info" when omitted.' },
      },
      required: ['tab', 'text'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
  },
  {
    name: TABS_INBOX_TOOL,
    title: 'Read inbox',
    description:
      'Take the messages other tabs sent you that have not reached you yet, oldest first. Messages normally arrive as your next prompt when you are idle; call this to read them while you are still working.',
    category: 'messaging',
    policy: 'read',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    annotations: { readOnlyHint: false },
  },
];

/** Runs one operation as the calling session; a refusal becomes a failed call carrying the words and the code. */
async function answer(messaging: MessagingService, ctx: ToolContext, request: Request): Promise<ToolResult> {
  if (ctx.sessionId === null) throw new BerthError('policy_denied', 'Messaging tools act as a session; this caller has none');
  const result: Answer = await messaging.ask(ctx.sessionId, request);
  if (!result.ok) {
    const code = result.code !== undefined && isErrorCode(result.code) ? result.code : 'invalid_request';
    throw new BerthError(code, result.text, result.sent ? { sent: result.sent } : {});
  }
  return { value: result, content: [{ type: 'text', text: result.text }] };
}
