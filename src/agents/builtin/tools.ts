import type OpenAI from 'openai';
import type { ToolDefinition } from '../../tools/types.js';
import { PLAN_TOOL, PLAN_TOOL_NAME } from './plan-tool.js';

/** The tools of one turn as the model sees them, and the way back from a wire name to the tool's name. */
export interface ModelTools {
  readonly tools: OpenAI.Chat.ChatCompletionTool[];
  /** Wire name → tool name, for names the function-name alphabet could not carry as they are. */
  readonly toolName: (wireName: string) => string;
}

/** OpenAI function names are 1-64 chars of [A-Za-z0-9_-]; app tool ids may use more. */
const WIRE_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_WIRE_NAME = 64;

/** A name the function-name alphabet accepts (also used for restored history). */
export function wireSafeName(name: string): string {
  return WIRE_NAME.test(name) ? name : name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, MAX_WIRE_NAME - 4) || 'tool';
}

function wireNameFor(name: string, taken: Set<string>): string {
  if (WIRE_NAME.test(name) && !taken.has(name)) return name;
  const base = wireSafeName(name);
  let candidate = base;
  for (let n = 2; taken.has(candidate); n++) candidate = `${base}_${n}`;
  return candidate;
}

/**
 * Each definition's function tool, kept as long as the definition is: the same object turn after
 * turn lets the context gauge and the request body reuse its JSON (compaction.ts, request-body.ts)
 * instead of serialising every schema again for each request.
 */
const functionTools = new WeakMap<ToolDefinition, OpenAI.Chat.ChatCompletionTool>();

function functionTool(d: ToolDefinition, wire: string): OpenAI.Chat.ChatCompletionTool {
  const known = functionTools.get(d);
  if (known?.type === 'function' && known.function.name === wire) return known;
  const tool: OpenAI.Chat.ChatCompletionTool = {
    type: 'function',
    function: { name: wire, description: d.description, parameters: d.inputSchema as OpenAI.FunctionParameters },
  };
  functionTools.set(d, tool);
  return tool;
}

/** The tool list of one turn as function tools; a definition seen before gives back the same tool object. */
export function modelTools(definitions: readonly ToolDefinition[]): ModelTools {
  const taken = new Set<string>([PLAN_TOOL_NAME]);
  const back = new Map<string, string>();
  const tools: OpenAI.Chat.ChatCompletionTool[] = [];
  for (const d of definitions) {
    // The driver's own plan tool wins a name clash: it is answered here, never by a host.
    if (d.name === PLAN_TOOL_NAME) continue;
    const wire = wireNameFor(d.name, taken);
    taken.add(wire);
    if (wire !== d.name) back.set(wire, d.name);
    tools.push(functionTool(d, wire));
  }
  tools.push(PLAN_TOOL);
  return { tools, toolName: (wire) => back.get(wire) ?? wire };
}
