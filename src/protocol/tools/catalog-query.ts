import { MAX_CATALOG_QUERY_CHARS, MAX_CATALOG_TOOLS } from '../limits.js';
import { assertMatches } from './arguments.js';
import type { Policy, ToolAvailability, ToolDefinition } from './types.js';

/** What a caller may ask of a catalog (docs/tool-protocol.md `tool.query` payload). */
export interface CatalogQuery {
  /** `full` (the default, also when omitted), `index`, or `definitions`. */
  readonly detail?: CatalogDetail;
  readonly ids?: readonly string[];
  readonly query?: string;
  /** A category name, or terms that must appear in the tool's text. */
  readonly feature?: string;
  readonly policy?: Policy;
  readonly executableOnly?: boolean;
  readonly limit?: number;
  readonly maxResults?: number;
  readonly ifRevision?: string;
  readonly ifAvailabilityRevision?: string;
}

export type CatalogDetail = 'full' | 'index' | 'definitions';

const QUERY_SCHEMA = {
  type: 'object',
  properties: {
    detail: { enum: ['full', 'index', 'definitions'] },
    ids: { type: 'array', items: { type: 'string' }, maxItems: MAX_CATALOG_TOOLS },
    query: { type: 'string', maxLength: MAX_CATALOG_QUERY_CHARS },
    feature: { type: 'string', maxLength: MAX_CATALOG_QUERY_CHARS },
    policy: { enum: ['read', 'write', 'critical'] },
    executableOnly: { type: 'boolean' },
    limit: { type: 'integer', minimum: 1 },
    maxResults: { type: 'integer', minimum: 1 },
    ifRevision: { type: 'string' },
    ifAvailabilityRevision: { type: 'string' },
  },
};

/**
 * Reads an untrusted `tool.query` payload: accepted whole or refused whole
 * with `protocol_error`. Unknown members are ignored, so newer callers'
 * hints do not break discovery. An absent payload is the default query.
 */
export function parseCatalogQuery(payload: unknown): CatalogQuery {
  if (payload === undefined || payload === null) return {};
  assertMatches(QUERY_SCHEMA, payload, 'protocol_error', 'the tool.query payload');
  return payload as CatalogQuery;
}

/** One visible tool with its evaluated state, as the catalog works on it. */
export interface CatalogEntryState {
  readonly def: ToolDefinition;
  readonly availability: ToolAvailability;
}

/**
 * Applies `ids`, `policy`, `executableOnly`, `query`, `feature` and
 * `limit`/`maxResults` (docs/tool-protocol.md: "applied … before serialization"). The
 * limit is capped at MAX_CATALOG_TOOLS.
 */
export function filterCatalog<T extends CatalogEntryState>(states: readonly T[], q: CatalogQuery): T[] {
  const ids = q.ids && q.ids.length > 0 ? new Set(q.ids.map((id) => id.trim())) : null;
  const queryTerms = terms(q.query);
  const feature = q.feature?.trim().toLowerCase() ?? '';
  const featureTerms = terms(q.feature);
  const limit = Math.min(q.limit ?? q.maxResults ?? MAX_CATALOG_TOOLS, MAX_CATALOG_TOOLS);
  return states
    .filter((s) => !ids || ids.has(s.def.name))
    .filter((s) => !q.policy || s.def.policy === q.policy)
    .filter((s) => !q.executableOnly || s.availability.available)
    .filter((s) => {
      const text = searchText(s.def);
      const featureHit = feature === '' || s.def.category.toLowerCase() === feature || featureTerms.every((t) => text.includes(t));
      return featureHit && queryTerms.every((t) => text.includes(t));
    })
    .slice(0, limit);
}

/** Lower-case words of letters and digits; everything else separates words. */
function normalize(text: string | undefined): string {
  return (text ?? '').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ');
}

function terms(text: string | undefined): string[] {
  return [...new Set(normalize(text).split(' ').filter(Boolean))];
}

function searchText(def: ToolDefinition): string {
  return normalize([def.name, def.title, def.description, def.category, ...(def.prerequisiteToolIds ?? [])].join(' '));
}
