/**
 * What an agent process gets to speak the module protocol (docs/modules.md),
 * so an agent tab lists and messages the other tabs of its workspace as a
 * built-in tab does with its tools. `main/` builds it from the messaging
 * service; the acp driver only passes it on.
 *
 * One process serves every session of its workspace that runs this agent, so
 * its environment carries one token that speaks for each of them as they
 * join (`grant`, when the session's ACP session is open on the process); a
 * question names its tab with `session`, the Berth session id the agent is
 * given in `session/new`'s `_meta.berth.session`.
 */
export interface AgentModuleAccess {
  /** Variables for the process environment (the socket and the process's token). */
  readonly env: Readonly<Record<string, string>>;
  /** Paths the sandbox must let the process reach: the workspace's module socket. */
  readonly reach: readonly string[];
  /** The process's token speaks for this Berth session too. */
  grant(sessionId: string): void;
  /** The session left the process (`sessionId`), or the process is gone: the token speaks for that tab, or anybody, no more. */
  revoke(sessionId?: string): void;
}

/** The access for a new agent process of a workspace, or null when that workspace has no module socket. */
export type AgentModules = (workspaceId: string) => AgentModuleAccess | null;

/** `_meta` of `session/new` and `session/load`: which tab the session is, for the module protocol's `session`. */
export function sessionMeta(sessionId: string): { berth: { session: string } } {
  return { berth: { session: sessionId } };
}
