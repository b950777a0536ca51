import type { FastifyRequest } from 'fastify';
import type { Core } from '../../core.js';
import { BerthError } from '../../protocol/errors/index.js';
import type { LocalWorkspace, Workspace } from '../../workspace/types.js';
import { param } from '../params.js';

/**
 * The workspace a qwen-style `/workspace/{cwd}/…` or `/workspaces/{cwd}/…` route names: its root
 * (percent-encoded, as the Web Shell sends it) or its Berth id. Looking never registers one.
 */
export function workspaceOf(core: Core, request: FastifyRequest, name: string): Workspace {
  return workspaceNamed(core, param(request, name));
}

/** The same, from the decoded `{cwd}` itself. */
export function workspaceNamed(core: Core, given: string): Workspace {
  const ws = given === '' ? undefined : core.workspaces.find(given);
  if (!ws) throw new BerthError('workspace_not_found', `No registered workspace at "${given}"`, { requestedWorkspace: given });
  return ws;
}

/** The same, for a route that reads files on this machine: a remote workspace is refused. */
export function localWorkspaceOf(core: Core, request: FastifyRequest, name: string): LocalWorkspace {
  const ws = workspaceOf(core, request, name);
  if (ws.kind !== 'local') throw new BerthError('workspace_is_remote', undefined, { workspaceId: ws.id });
  return ws;
}

/** What qwen calls a workspace's cwd: the root of a local one, the id of a remote one. */
export const cwdOf = (ws: Workspace): string => (ws.kind === 'local' ? ws.root : ws.id);
