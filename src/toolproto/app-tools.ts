import { AFTER } from '../protocol/toolproto/payloads.js';
import { fromProtocolSchema } from '../protocol/tools/protocol-schema.js';
import type { EvidenceRequest } from '../protocol/toolproto/payloads.js';
import type { WireDefinition } from '../protocol/tools/definitions.js';
import { FLATTENED_STRING, type JsonSchema, type Policy, type Tool, type ToolAvailability, type ToolContext, type ToolResult } from '../tools/types.js';

/**
 * Berth's extension for agents: docs/tool-protocol.md lets the host ask for post-call
 * evidence (`after`), but `workspace_tool {name, arguments}` (docs/gateway.md) has no
 * place for it. So each application tool whose schema has no `after` property
 * of its own gains an optional one in the schema agents see; the daemon takes
 * it out of the arguments and sends it as the call's `after`.
 */
const EVIDENCE_OPTION = {
  ...AFTER,
  description:
    'Optional, added by Berth: evidence the application captures after the call (seed 003 `after`): ' +
    '`include` visualTree and/or screenshot, taken `delayMilliseconds` (0-2000) later.',
};

/** How the tool runs: the application session's call, with the evidence request split out. */
export type RunOnApplication = (toolId: string, args: Record<string, unknown>, after: EvidenceRequest | undefined, ctx: ToolContext) => Promise<ToolResult>;

/** An application's published definition as a tool of the daemon's registry. */
export function applicationTool(
  def: WireDefinition,
  availability: (id: string) => ToolAvailability,
  run: RunOnApplication,
): Tool {
  const schema = fromProtocolSchema(def.inputSchema ?? { type: 'object' });
  const { inputSchema, carriesEvidence } = withEvidenceOption(schema);
  return {
    name: def.id,
    ...(def.name !== def.id ? { title: def.name } : {}),
    description: def.description,
    category: def.category,
    policy: def.policy as Policy,
    inputSchema,
    annotations: { ...(def.annotations ?? {}) },
    ...(def.prerequisiteToolIds ? { prerequisiteToolIds: def.prerequisiteToolIds } : {}),
    ...(def.outputSchema ? { outputSchema: fromProtocolSchema(def.outputSchema) } : {}),
    ...(def.argumentEncoding === FLATTENED_STRING ? { argumentEncoding: FLATTENED_STRING } : {}),
    availability: () => availability(def.id),
    run(args, ctx) {
      if (!carriesEvidence || args.after === undefined) return run(def.id, args, undefined, ctx);
      const { after, ...rest } = args;
      return run(def.id, rest, after as EvidenceRequest, ctx);
    },
  };
}

function withEvidenceOption(schema: JsonSchema): { inputSchema: JsonSchema; carriesEvidence: boolean } {
  const properties = schema.properties as Record<string, unknown> | undefined;
  if (schema.type !== 'object' || (properties && Object.hasOwn(properties, 'after'))) {
    return { inputSchema: schema, carriesEvidence: false };
  }
  return { inputSchema: { ...schema, properties: { ...(properties ?? {}), after: EVIDENCE_OPTION } }, carriesEvidence: true };
}
