import { MAX_CACHED_DEFINITIONS_PER_APP } from './limits.js';
import type { WireDefinition } from '../protocol/tools/definitions.js';

/**
 * docs/tool-protocol.md: "cache each response by definitionRevision". One cache per
 * application name (its token), kept across reconnects so a returning
 * application costs one index query, not a definitions query. Revisions are
 * the application's own claims; scoping by application means a wrong claim
 * can only confuse that application's tools. Least recently used first out.
 */
export class DefinitionCache {
  private readonly byRevision = new Map<string, WireDefinition>();

  constructor(private readonly capacity = MAX_CACHED_DEFINITIONS_PER_APP) {}

  get(revision: string): WireDefinition | undefined {
    const def = this.byRevision.get(revision);
    if (def) {
      this.byRevision.delete(revision);
      this.byRevision.set(revision, def);
    }
    return def;
  }

  has(revision: string): boolean {
    return this.byRevision.has(revision);
  }

  set(revision: string, def: WireDefinition): void {
    this.byRevision.delete(revision);
    this.byRevision.set(revision, def);
    while (this.byRevision.size > this.capacity) this.byRevision.delete(this.byRevision.keys().next().value!);
  }

  get size(): number {
    return this.byRevision.size;
  }
}
