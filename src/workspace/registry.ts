import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { basename, isAbsolute, resolve } from 'node:path';
import { BerthError } from '../protocol/errors/index.js';
import type { LocalWorkspace, RemoteWorkspace, Workspace } from './types.js';

export function workspaceIdFor(root: string): string {
  return createHash('sha256').update(root).digest('hex').slice(0, 16);
}

/** The daemon's workspaces: fixed at start-up from `--workspace` and `--remote-workspace`. */
export class WorkspaceRegistry {
  private readonly byIdMap = new Map<string, Workspace>();
  private readonly ordered: Workspace[] = [];

  constructor(localRoots: readonly string[], remoteIds: readonly string[] = []) {
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
   * Selects the workspace a `POST /session` `cwd` names (spec §5.1): omitted → primary;
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
    throw new BerthError(
      'workspace_mismatch',
      `Workspace mismatch: no registered workspace at "${cwd}"; this daemon will not fall back to the primary workspace.`,
      { boundWorkspace: this.primary().root, requestedWorkspace: cwd },
    );
  }
}
