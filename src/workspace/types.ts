/**
 * A registered project root (docs/architecture.md, Core concepts). Local workspaces are
 * directories on this machine; remote ones are reached through a gateway
 * channel (docs/gateway.md) and have no local root.
 */
export interface LocalWorkspace {
  readonly kind: 'local';
  /** Stable id: the first 16 hex digits of SHA-256 over the canonical root. */
  readonly id: string;
  /** Canonical absolute root (after realpath). */
  readonly root: string;
  readonly primary: boolean;
  readonly trusted: boolean;
  readonly displayName: string;
}

export interface RemoteWorkspace {
  readonly kind: 'remote';
  /** The id the owner dials in with; also the `cwd` a client passes to `POST /session`. */
  readonly id: string;
  readonly primary: false;
  readonly trusted: boolean;
  readonly displayName: string;
}

export type Workspace = LocalWorkspace | RemoteWorkspace;
