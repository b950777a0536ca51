import type { Clock } from '../clock.js';
import type { Grant, GrantScope } from './permission-options.js';

/** One remembered "always" choice (migration 10): allow or reject `key` within a scope. */
export interface GrantRow {
  readonly scope: GrantScope;
  /** The session id, the workspace id, or '' for the daemon's user. */
  readonly scopeId: string;
  readonly key: string;
  readonly choice: 'allow' | 'reject';
  readonly label: string;
  readonly createdAt: number;
}

/** Where "always" choices persist (docs/architecture.md, Persistence); they survive a restart. */
export interface PermissionGrantRepository {
  /** Every grant that applies to a session: its own, its workspace's, and the user's. */
  applying(sessionId: string, workspaceId: string): Promise<GrantRow[]>;
  /** Records a grant; a later choice for the same scope and key replaces the earlier one. */
  put(row: GrantRow): Promise<void>;
}

/** For embedders and tests without a store: grants last as long as the process. */
export class MemoryGrantRepository implements PermissionGrantRepository {
  private readonly rows = new Map<string, GrantRow>();

  async applying(sessionId: string, workspaceId: string): Promise<GrantRow[]> {
    return [...this.rows.values()].filter(
      (r) => (r.scope === 'session' && r.scopeId === sessionId) || (r.scope === 'workspace' && r.scopeId === workspaceId) || r.scope === 'user',
    );
  }

  async put(row: GrantRow): Promise<void> {
    this.rows.set(`${row.scope}\0${row.scopeId}\0${row.key}`, row);
  }
}

/** What a session's grants say of a call: allowed or rejected, and by which grant. */
export interface GrantVerdict {
  readonly choice: 'allow' | 'reject';
  readonly label: string;
}

/** One session's view of the remembered choices: read from the store at each question, so another tab's grant applies at once. */
export class SessionGrants {
  constructor(
    private readonly repo: PermissionGrantRepository,
    private readonly sessionId: string,
    private readonly workspaceId: string,
    private readonly clock: Clock,
  ) {}

  /** A reject of any key wins; an allow needs every key allowed. */
  async verdict(keys: readonly string[] | null, rejectKeys: readonly string[]): Promise<GrantVerdict | undefined> {
    const rows = await this.repo.applying(this.sessionId, this.workspaceId);
    const rejected = rows.find((r) => r.choice === 'reject' && rejectKeys.includes(r.key));
    if (rejected) return { choice: 'reject', label: rejected.label };
    if (keys === null || keys.length === 0) return undefined;
    const allowed = keys.map((k) => rows.find((r) => r.choice === 'allow' && r.key === k));
    if (allowed.some((r) => r === undefined)) return undefined;
    return { choice: 'allow', label: allowed.map((r) => r!.label).join('; ') };
  }

  async record(grant: Grant): Promise<void> {
    const scopeId = grant.scope === 'session' ? this.sessionId : grant.scope === 'workspace' ? this.workspaceId : '';
    const createdAt = this.clock.now();
    for (const key of grant.keys) await this.repo.put({ scope: grant.scope, scopeId, key, choice: grant.choice, label: grant.label, createdAt });
  }
}
