import { mintModuleToken, moduleTokenHash } from './module-tokens.js';

/**
 * The module tokens of external agent processes (docs/agents.md): one per
 * process, speaking for each session of that process from its first turn
 * until it leaves. Kept in memory, apart from the tokens an owner is shown:
 * they live no longer than their process (which a daemon restart ends), an
 * owner rotating a tab's tokens does not cut its agent off, and a tab holding
 * only its agent's token has still shown its owner none.
 */
export class AgentTokens {
  private readonly byHash = new Map<string, Set<string>>();

  mint(): string {
    const token = mintModuleToken();
    this.byHash.set(moduleTokenHash(token), new Set());
    return token;
  }

  grant(token: string, sessionId: string): void {
    this.byHash.get(moduleTokenHash(token))?.add(sessionId);
  }

  /** The token speaks for `sessionId` no more, or (none named) for nobody. */
  revoke(token: string, sessionId?: string): void {
    const hash = moduleTokenHash(token);
    if (sessionId === undefined) this.byHash.delete(hash);
    else this.byHash.get(hash)?.delete(sessionId);
  }

  /** The sessions a token hash speaks for, when it is an agent process's. */
  sessionsFor(hash: string): string[] {
    return [...(this.byHash.get(hash) ?? [])].sort();
  }
}
