import { sha256Revision } from './canonical-json.js';
import { filterCatalog, type CatalogEntryState, type CatalogQuery } from './catalog-query.js';
import { availabilityOf, definitionRevision, wireDefinition, wireRuntime, type WireRuntime } from './definitions.js';
import { guardPermits, type ToolGuard } from './guard.js';
import type { CatalogTool } from './types.js';

/** docs/tool-protocol.md: the catalog schema name, part of every answer and of the revision. */
export const CATALOG_SCHEMA = 'ansight.tool-catalog.v3';

/**
 * The `tool.catalog` payload, shaped exactly as the tool protocol sends it (docs/tool-protocol.md). Members
 * that are protocol defaults are absent, never `false`/empty.
 */
export type CatalogPayload = Record<string, unknown> & {
  readonly schema: typeof CATALOG_SCHEMA;
  readonly revision: string;
};

interface EntryState extends CatalogEntryState {
  readonly definitionRevision: string;
  readonly runtime: WireRuntime | undefined;
}

/** Revision of the static catalog: schema, guard, visible ids and their definition revisions (docs/tool-protocol.md). */
export function catalogRevision(guard: ToolGuard, states: readonly EntryState[]): string {
  return sha256Revision({
    schema: CATALOG_SCHEMA,
    guard: { maxPolicy: guard.maxPolicy },
    tools: states.map((s) => ({ id: s.def.name, definitionRevision: s.definitionRevision })),
  });
}

/** Revision of runtime executability only: changes when some visible tool becomes (un)available. */
export function availabilityRevision(states: readonly EntryState[]): string {
  return sha256Revision({ tools: states.map((s) => ({ id: s.def.name, runtime: s.runtime ?? { available: true } })) });
}

/**
 * Answers one catalog query over a tool set under a guard, at `now` (ms).
 * Nothing here reads a clock; `now` only stamps `evaluatedAtUtc`.
 *
 * docs/tool-protocol.md (Catalog Discovery): when both revisions the caller holds match,
 * the answer is exactly `{schema, revision, unchanged: true}`; when only
 * availability moved, it adds the new `availabilityRevision`, one
 * `evaluatedAtUtc` and `changes` (a replacement snapshot of the non-default
 * states). A `definitions` request always carries definitions.
 */
export function answerCatalogQuery(tools: readonly CatalogTool[], guard: ToolGuard, query: CatalogQuery, now: number): CatalogPayload {
  const states = visibleStates(tools, guard);
  const revision = catalogRevision(guard, states);
  const availability = availabilityRevision(states);
  const detail = query.detail ?? 'full';
  const evaluatedAtUtc = new Date(now).toISOString();

  if (detail !== 'definitions' && query.ifRevision === revision) {
    if (query.ifAvailabilityRevision === undefined || query.ifAvailabilityRevision === availability) {
      return { schema: CATALOG_SCHEMA, revision, unchanged: true };
    }
    return {
      schema: CATALOG_SCHEMA,
      revision,
      unchanged: true,
      availabilityRevision: availability,
      evaluatedAtUtc,
      changes: availabilityChanges(states),
    };
  }

  const selected = filterCatalog(states, query);
  const entries = selected.map((s) => (detail === 'index' ? indexEntry(s) : detail === 'definitions' ? definitionEntry(s) : fullEntry(s)));
  if (detail === 'definitions') {
    // Definition projections omit index-level availability, timestamp, category and total-count metadata.
    return { schema: CATALOG_SCHEMA, revision, detail, tools: entries, count: entries.length };
  }
  return {
    schema: CATALOG_SCHEMA,
    revision,
    availabilityRevision: availability,
    evaluatedAtUtc,
    ...(detail === 'index' ? { detail } : {}),
    tools: entries,
    count: entries.length,
    totalCount: states.length,
    categories: categoryCounts(states),
  };
}

/** The tools a guard lets a caller see, sorted by id, each evaluated now. */
function visibleStates(tools: readonly CatalogTool[], guard: ToolGuard): EntryState[] {
  return tools
    .filter((t) => guardPermits(guard, t))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((t) => {
      const availability = availabilityOf(t);
      return { def: t, availability, definitionRevision: definitionRevision(t), runtime: wireRuntime(availability) };
    });
}

/** Index entries omit schemas (docs/tool-protocol.md): id, name, description, category, policy, revision, prerequisites. */
function indexEntry(s: EntryState): Record<string, unknown> {
  const d = wireDefinition(s.def);
  return {
    id: d.id,
    name: d.name,
    description: d.description,
    category: d.category,
    policy: d.policy,
    definitionRevision: s.definitionRevision,
    ...(d.prerequisiteToolIds ? { prerequisiteToolIds: d.prerequisiteToolIds } : {}),
    ...runtimeMembers(s),
  };
}

function definitionEntry(s: EntryState): Record<string, unknown> {
  return { ...wireDefinition(s.def), definitionRevision: s.definitionRevision };
}

function fullEntry(s: EntryState): Record<string, unknown> {
  return { ...definitionEntry(s), ...runtimeMembers(s) };
}

/** Available and executable are defaults and omitted; an unavailable tool carries its compact runtime. */
function runtimeMembers(s: EntryState): Record<string, unknown> {
  return s.runtime ? { runtime: s.runtime, executable: false } : {};
}

function availabilityChanges(states: readonly EntryState[]): Record<string, WireRuntime> {
  const changes: Record<string, WireRuntime> = {};
  for (const s of states) if (s.runtime) changes[s.def.name] = s.runtime;
  return changes;
}

function categoryCounts(states: readonly EntryState[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const s of [...states].sort((a, b) => (a.def.category < b.def.category ? -1 : 1))) {
    counts[s.def.category] = (counts[s.def.category] ?? 0) + 1;
  }
  return counts;
}
