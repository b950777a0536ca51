import { realpathSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { ConfigError, isIntention } from '../../config/config.js';
import { MAX_INTENTION_CHARS } from '../../protocol/limits.js';
import type { LocalWorkspace } from '../../workspace/types.js';
import { REMOTE_WORKSPACE_ID } from '../../protocol/gateway/frames.js';

/** What the owner pins before connecting (docs/gateway.md: "Pin one local project identity and launch intention"). */
export interface OwnerPin {
  /** The project as the tools see it: the canonical root, under the id B knows the workspace by. */
  readonly workspace: LocalWorkspace;
  readonly intention: string;
}

const pinKey = (workspaceId: string) => `gateway.owner.project:${workspaceId}`;

/** Where the owner's home keeps its pins (the store's key/value table implements it). */
export interface PinStore {
  /** Keeps the first value stored under `key`; returns the value the key holds now. */
  claim(key: string, value: string): Promise<string>;
}

/**
 * Resolves and pins the project. The canonical root is recorded in the
 * owner's store the first time a workspace id is used from this home; a later
 * run with the same id and home but another project is refused, because the
 * receipts kept here answer for that project's effects.
 *
 * The workspace id is B's label: it names the receipts and is compared with
 * every call, never joined into a path (docs/gateway.md: "Do not use the agent's
 * project label as a local path").
 */
export async function pinProject(pins: PinStore, workspaceId: string, projectDir: string, intention: string): Promise<OwnerPin> {
  if (!REMOTE_WORKSPACE_ID.test(workspaceId)) {
    throw new ConfigError(`--workspace-id takes 1-128 chars of [A-Za-z0-9._-], got ${JSON.stringify(workspaceId)}`);
  }
  if (!isIntention(intention)) {
    throw new ConfigError(`--intention takes 1-${MAX_INTENTION_CHARS} characters without control characters`);
  }
  let root: string;
  try {
    root = realpathSync(projectDir);
  } catch {
    throw new ConfigError(`--project ${projectDir} does not exist`);
  }
  if (!statSync(root).isDirectory()) throw new ConfigError(`--project ${projectDir} is not a directory`);

  const pinned = await pins.claim(pinKey(workspaceId), root);
  if (pinned !== root) {
    throw new ConfigError(
      `workspace ${workspaceId} is pinned to ${pinned} in this --home; its receipts belong to that project. Use another --home for ${root}.`,
    );
  }
  return {
    workspace: { kind: 'local', id: workspaceId, root, primary: true, trusted: true, displayName: basename(root) || root },
    intention,
  };
}
