import { readFileSync } from 'node:fs';
import type { JsonSchema, Policy, ToolAnnotations, ToolDefinition } from '../types.js';
import { packageFile } from '../../package-files.js';

/** One tool as contract/gateway-v1.json publishes it: the name, description, schema and hints an agent sees. */
interface SeedTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  readonly annotations: ToolAnnotations;
}

/**
 * docs/gateway.md (`contract/gateway-v1.json`) is the single source of the workspace
 * tools' names, descriptions, input schemas and annotations (one schema, one source); they
 * are read from it, never retyped.
 */
const SEED_000_TOOLS: readonly SeedTool[] = JSON.parse(
  readFileSync(packageFile('contract/gateway-v1.json'), 'utf8'),
).tools;

/** What Berth adds to a seed tool: where it sits in the catalog and how far it may reach. */
export interface BerthToolPlacement {
  readonly policy: Policy;
  readonly category: string;
  /**
   * Berth's definition of something the seed leaves open, appended to the
   * contract's description so the agent reads it where it reads the rest
   * (docs/workspace-tools.md explains each one).
   */
  readonly note?: string;
}

/** The full definition of gateway tool `name`, with Berth's policy, category and note. */
export function seedToolDefinition(name: string, placement: BerthToolPlacement): ToolDefinition {
  const seed = SEED_000_TOOLS.find((t) => t.name === name);
  if (!seed) throw new Error(`seed 000 defines no tool named ${name}`);
  return {
    name: seed.name,
    description: placement.note === undefined ? seed.description : `${seed.description} ${placement.note}`,
    inputSchema: seed.inputSchema,
    annotations: seed.annotations,
    policy: placement.policy,
    category: placement.category,
  };
}
