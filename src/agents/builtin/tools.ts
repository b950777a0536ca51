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

/** The tool list of one turn as function tools (about 10 µs for the builtins, so it is not cached). */
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
    tools.push({
      type: 'function',
      function: { name: wire, description: d.description, parameters: d.inputSchema as OpenAI.FunctionParameters },
    });
  }
  tools.push(PLAN_TOOL);
  return { tools, toolName: (wire) => back.get(wire) ?? wire };
}
