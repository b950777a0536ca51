import { createHash } from 'node:crypto';
import { realpathSync, statSync } from 'node:fs';
import { basename, isAbsolute, resolve, sep } from 'node:path';
import { BerthError } from '../protocol/errors/index.js';
import type { LocalWorkspace, RemoteWorkspace, Workspace } from './types.js';

export function workspaceIdFor(root: string): string {
  return createHash('sha256').update(root).digest('hex').slice(0, 16);
}

/** The flags a refusal names, so the person reading it knows how to serve another project. */
const SERVE_MORE = 'serve it with --workspace DIR (repeatable), or let sessions register directories under a root on first use with --allow-workspace-root DIR';

/**
 * The daemon's workspaces: given at start-up with `--workspace` and
 * `--remote-workspace`, plus — only under a root the operator opted in with
 * `--allow-workspace-root` — directories a session names on first use (issue 11).
 */
export class WorkspaceRegistry {
  private readonly byIdMap = new Map<string, Workspace>();
  private readonly ordered: Workspace[] = [];
  private readonly allowRoots: readonly string[];

  constructor(localRoots: readonly string[], remoteIds: readonly string[] = [], allowRoots: readonly string[] = []) {
    if (localRoots.length === 0) throw new Error('at least one local workspace is required');
    localRoots.forEach((given, i) => {
      let root: string;
      try {
        root = realpathSync(given);
      } catch {
        throw new Error(`workspace ${given} does not exist`);
      }
      const ws: LocalWorkspace = {
        kind: 'local',
        id: workspaceIdFor(root),
        root,
        primary: i === 0,
        trusted: true,
        displayName: basename(root) || root,
      };
      if (!this.byIdMap.has(ws.id)) this.add(ws);
    });
    for (const id of remoteIds) {
      if (this.byIdMap.has(id)) throw new Error(`remote workspace id ${id} is already registered`);
      const ws: RemoteWorkspace = { kind: 'remote', id, primary: false, trusted: true, displayName: id };
      this.add(ws);
    }
    this.allowRoots = allowRoots.map((given) => {
      try {
        return realpathSync(given);
      } catch {
        throw new Error(`--allow-workspace-root ${given} does not exist`);
      }
    });
  }

  private add(ws: Workspace): void {
    this.byIdMap.set(ws.id, ws);
    this.ordered.push(ws);
  }

  list(): readonly Workspace[] {
    return this.ordered;
  }

  primary(): LocalWorkspace {
    return this.ordered[0] as LocalWorkspace;
  }

  byId(id: string): Workspace | undefined {
    return this.byIdMap.get(id);
  }

  /**
   * The registered workspace a read names by id or by root, or undefined. Unlike `select` it never
   * registers a directory, so a route that only looks (the Web Shell's sidebar polls) cannot add one.
   */
  find(idOrCwd: string): Workspace | undefined {
    const byId = this.byIdMap.get(idOrCwd);
    if (byId) return byId;
    if (!isAbsolute(idOrCwd)) return undefined;
    let canonical: string;
    try {
      canonical = realpathSync(idOrCwd);
    } catch {
      canonical = resolve(idOrCwd);
    }
    return this.ordered.find((ws) => ws.kind === 'local' && ws.root === canonical);
  }

  /**
   * Selects the workspace a `POST /session` `cwd` names (docs/client-api.md §5.1): omitted → primary;
   * a remote workspace id → that workspace; an absolute path → the local workspace whose
   * canonical root equals it; anything else → `workspace_mismatch`.
   */
  select(cwd: string | undefined | null): Workspace {
    if (cwd === undefined || cwd === null || cwd === '') return this.primary();
    const remote = this.byIdMap.get(cwd);
    if (remote && remote.kind === 'remote') return remote;
    if (!isAbsolute(cwd)) {
      throw new BerthError('workspace_mismatch', '`cwd` must be an absolute path or a remote workspace id', {
        boundWorkspace: this.primary().root,
        requestedWorkspace: cwd,
      });
    }
    let canonical: string;
    try {
      canonical = realpathSync(cwd);
    } catch {
      canonical = resolve(cwd);
    }
    for (const ws of this.ordered) {
      if (ws.kind === 'local' && ws.root === canonical) return ws;
    }
    const registered = this.registerUnderAllowedRoot(canonical);
    if (registered) return registered;
    const outside = this.allowRoots.length > 0 ? `, and it is not a directory under any --allow-workspace-root` : '';
    throw new BerthError(
      'workspace_mismatch',
      `Workspace mismatch: no registered workspace at "${cwd}"${outside}; this daemon will not fall back to the primary workspace. To ${SERVE_MORE}.`,
      { boundWorkspace: this.primary().root, requestedWorkspace: cwd },
    );
  }

  /** A directory under an allowed root becomes a workspace the first time it is named; anything else stays refused. */
  private registerUnderAllowedRoot(canonical: string): LocalWorkspace | undefined {
    const under = this.allowRoots.some((root) => canonical === root || canonical.startsWith(root.endsWith(sep) ? root : root + sep));
    if (!under) return undefined;
    try {
      if (!statSync(canonical).isDirectory()) return undefined;
    } catch {
      return undefined;
    }
    const ws: LocalWorkspace = {
      kind: 'local',
      id: workspaceIdFor(canonical),
      root: canonical,
      primary: false,
      trusted: true,
      displayName: basename(canonical) || canonical,
    };
    this.add(ws);
    return ws;
  }
}
