import type { McpServerSpec } from '../config/mcp-servers.js';
import { BerthError } from '../protocol/errors/index.js';
import { MAX_CATALOG_TOOLS } from '../protocol/limits.js';
import { checkToolSchema } from '../protocol/tools/arguments.js';
import { MCP_CATEGORY_PREFIX } from '../tools/service.js';
import type { JsonSchema, Policy, Tool, ToolContent, ToolContext, ToolResult } from '../tools/types.js';

/** A tool as an MCP server lists it (`tools/list`), before anything of it is trusted. */
export interface McpListedTool {
  readonly name?: unknown;
  readonly title?: unknown;
  readonly description?: unknown;
  readonly inputSchema?: unknown;
  readonly annotations?: { readonly readOnlyHint?: unknown; readonly destructiveHint?: unknown; readonly title?: unknown } | null;
}

/** What running one MCP tool needs from its server connection. */
export type McpCaller = (tool: string, args: Record<string, unknown>, signal: AbortSignal) => Promise<ToolResult>;

/** The Berth name of a server's tool: namespaced, so two servers (or a server and a builtin) never collide. */
export const mcpToolName = (server: string, tool: string): string => `mcp__${server}__${tool}`;

/** An MCP tool name Berth can carry: what model APIs accept in a function name, bounded. */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** Annotations decide, unless the config says otherwise for the tool or the server (issue 15). */
export function policyOf(spec: McpServerSpec, tool: string, annotations: McpListedTool['annotations']): Policy {
  const chosen = spec.toolPolicies?.[tool] ?? spec.policy;
  if (chosen) return chosen;
  if (annotations?.destructiveHint === true) return 'critical';
  if (annotations?.readOnlyHint === true) return 'read';
  return 'write';
}

export interface ConvertedCatalog {
  readonly tools: Tool[];
  /** Tools left out, each with the reason: logged, never fatal to the rest. */
  readonly refused: { readonly name: string; readonly reason: string }[];
}

/**
 * A server's `tools/list` as Berth tools. Every tool is checked on its own —
 * a bad name, a missing or invalid input schema, or one past MAX_CATALOG_TOOLS
 * leaves that tool out with a reason — so one broken tool never hides the rest.
 */
export function convertCatalog(spec: McpServerSpec, listed: readonly McpListedTool[], call: McpCaller): ConvertedCatalog {
  const tools: Tool[] = [];
  const refused: { name: string; reason: string }[] = [];
  const seen = new Set<string>();
  for (const raw of listed) {
    const name = typeof raw?.name === 'string' ? raw.name : '';
    const reason = refusalOf(raw, name, seen, tools.length);
    if (reason) {
      refused.push({ name: name || '(unnamed)', reason });
      continue;
    }
    seen.add(name);
    tools.push(toolOf(spec, raw, name, call));
  }
  return { tools, refused };
}

function refusalOf(raw: McpListedTool, name: string, seen: ReadonlySet<string>, count: number): string | undefined {
  if (!TOOL_NAME.test(name)) return 'its name is not 1-64 letters, digits, _ . or -';
  if (seen.has(name)) return 'the server lists it twice';
  if (count >= MAX_CATALOG_TOOLS) return `the server lists more than ${MAX_CATALOG_TOOLS} tools`;
  const schema = raw.inputSchema;
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return 'it has no input schema object';
  try {
    checkToolSchema(schema as JsonSchema, `MCP tool ${name}`);
  } catch (err) {
    return (err as Error).message;
  }
  return undefined;
}

function toolOf(spec: McpServerSpec, raw: McpListedTool, name: string, call: McpCaller): Tool {
  const text = (v: unknown, max: number) => (typeof v === 'string' ? v.slice(0, max) : undefined);
  const title = text(raw.title, 200) ?? text(raw.annotations?.title, 200);
  const policy = policyOf(spec, name, raw.annotations);
  return {
    name: mcpToolName(spec.name, name),
    ...(title !== undefined ? { title } : {}),
    description: text(raw.description, 4000) ?? `Tool ${name} of MCP server ${spec.name}`,
    category: `${MCP_CATEGORY_PREFIX}${spec.name}`,
    policy,
    inputSchema: raw.inputSchema as JsonSchema,
    annotations: { readOnlyHint: policy === 'read', destructiveHint: policy === 'critical' },
    run: (args: Record<string, unknown>, ctx: ToolContext) => call(name, args, ctx.signal),
  };
}

/** Upper bound on the text one MCP result may put before the agent. */
const MAX_RESULT_TEXT = 256 * 1024;

/**
 * An MCP `tools/call` result as a Berth tool result: text and image content
 * kept (text bounded), `structuredContent` as the value, anything else
 * described in one line. `isError: true` is the tool's own failure.
 */
export function resultOf(server: string, tool: string, raw: unknown): ToolResult {
  const r = (raw ?? {}) as { content?: unknown; structuredContent?: unknown; isError?: unknown };
  const content: ToolContent[] = [];
  let budget = MAX_RESULT_TEXT;
  for (const part of Array.isArray(r.content) ? r.content : []) {
    const p = part as { type?: unknown; text?: unknown; data?: unknown; mimeType?: unknown };
    if (p?.type === 'text' && typeof p.text === 'string') {
      const kept = p.text.slice(0, Math.max(0, budget));
      budget -= kept.length;
      content.push({ type: 'text', text: kept.length < p.text.length ? `${kept}\n[truncated: the MCP result was longer]` : kept });
    } else if (p?.type === 'image' && typeof p.data === 'string' && typeof p.mimeType === 'string') {
      content.push({ type: 'image', data: p.data, mimeType: p.mimeType });
    } else if (p && typeof p.type === 'string') {
      content.push({ type: 'text', text: `[${p.type} content from ${server}]` });
    }
  }
  if (r.isError === true) {
    const message = content.map((c) => (c.type === 'text' ? c.text : '')).join('\n').slice(0, 2000) || `MCP tool ${tool} failed`;
    throw new BerthError('tool_failed', message, { server, tool });
  }
  const value = r.structuredContent !== undefined ? r.structuredContent : { text: content.map((c) => (c.type === 'text' ? c.text : '')).join('\n') };
  return { value, content };
}
