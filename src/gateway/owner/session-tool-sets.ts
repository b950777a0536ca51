import type { ToolService, ToolSetOptions } from '../../tools/service.js';
import type { ToolSet } from '../../tools/tool-set.js';

/** Sessions whose tool set is kept; more sessions than this at once only means building sets again. */
const MAX_KEPT_SESSIONS = 64;

/**
 * A's tool set per session, built once instead of per call. A set is a fixed
 * list taken when it is built, and the only list on A that changes while it
 * runs is the applications' (tool protocol and MCP servers): so a set is kept
 * only while the project has no application tools at all, and with any
 * published every call gets a set built for it, as before.
 */
export class SessionToolSets {
  private readonly kept = new Map<string, ToolSet>();

  constructor(private readonly tools: ToolService) {}

  forCall(options: ToolSetOptions & { readonly sessionId: string }): ToolSet {
    if (this.tools.applications.list(options.workspace.id).length > 0) {
      this.kept.clear();
      return this.tools.toolSet(options);
    }
    const known = this.kept.get(options.sessionId);
    if (known) return known;
    const made = this.tools.toolSet(options);
    if (this.kept.size >= MAX_KEPT_SESSIONS) this.kept.delete(this.kept.keys().next().value!);
    this.kept.set(options.sessionId, made);
    return made;
  }
}
