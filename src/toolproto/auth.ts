import type { IncomingMessage } from 'node:http';
import { isAbsolute } from 'node:path';
import { BerthError } from '../protocol/errors/index.js';
import { checkHost, checkOrigin, queryCredentials, type SecurityContext } from '../net/security.js';
import { bearerOf } from '../tokens/tokens.js';
import type { WorkspaceRegistry } from '../workspace/registry.js';
import type { ApplicationIdentity } from './app-session.js';
import { BEARER_SUBPROTOCOL_PREFIX, TOOL_SUBPROTOCOL } from '../protocol/toolproto/subprotocol.js';

export interface AppAdmission {
  readonly identity: ApplicationIdentity;
  readonly workspaceId: string;
}

/**
 * The checks of an application's upgrade request, in the client API's order
 * (Origin → Host → query credentials → bearer), then the workspace the
 * application binds to: `?workspace=<id or absolute root>` (not a
 * credential, so the query is fine), the primary workspace by default.
 * Only application tokens are admitted.
 */
export async function admitApplication(request: IncomingMessage, ctx: SecurityContext, bind: WorkspaceBinder): Promise<AppAdmission> {
  if (checkOrigin(request.headers, ctx).kind === 'denied') throw new BerthError('cors_denied');
  const url = request.url ?? '/';
  const refused = checkHost(request.headers, ctx) ?? queryCredentials(url);
  if (refused) throw refused;
  const bearer = presentedBearer(request);
  if (bearer === null) {
    throw new BerthError('token_required', 'Connect with an application token: Authorization: Bearer <token>, or the berth.bearer.<token> subprotocol');
  }
  const who = await ctx.tokens.identify(bearer);
  if (who === null) throw new BerthError('unauthorized');
  if (who.scope !== 'app') throw new BerthError('token_scope_denied', `A ${who.scope} token cannot connect an application; create one with berth token create --app`);
  const workspace = new URL(url, 'http://localhost').searchParams.get('workspace');
  return { identity: { appName: who.appName, maxPolicy: who.maxPolicy }, workspaceId: bind(workspace) };
}

function presentedBearer(request: IncomingMessage): string | null {
  const header = request.headers.authorization;
  const fromHeader = bearerOf(Array.isArray(header) ? header[0] : header);
  const offered = offeredSubprotocols(request);
  const tokens = offered.filter((p) => p.startsWith(BEARER_SUBPROTOCOL_PREFIX)).map((p) => p.slice(BEARER_SUBPROTOCOL_PREFIX.length));
  if (tokens.length > 1) throw new BerthError('invalid_request', 'Offer at most one berth.bearer subprotocol');
  const fromProtocol = tokens[0] ?? null;
  if (fromProtocol !== null && !offered.includes(TOOL_SUBPROTOCOL)) {
    throw new BerthError('invalid_request', `A berth.bearer subprotocol must come with ${TOOL_SUBPROTOCOL}, which the daemon selects`);
  }
  if (fromHeader !== null && fromProtocol !== null && fromHeader !== fromProtocol) {
    throw new BerthError('invalid_request', 'The Authorization header and the berth.bearer subprotocol name different tokens');
  }
  return fromHeader ?? fromProtocol;
}

export function offeredSubprotocols(request: IncomingMessage): string[] {
  const header = request.headers['sec-websocket-protocol'];
  const text = Array.isArray(header) ? header.join(',') : (header ?? '');
  return text.split(',').map((p) => p.trim()).filter(Boolean);
}

/** Resolves the `workspace` query parameter (null when absent) to the id of the workspace the app binds to. */
export type WorkspaceBinder = (named: string | null) => string;

/** The daemon's binder: local workspaces by id or absolute root, the primary one by default. */
export const bindLocalWorkspace = (workspaces: WorkspaceRegistry): WorkspaceBinder => (named) => bindWorkspace(named, workspaces);

function bindWorkspace(named: string | null, workspaces: WorkspaceRegistry): string {
  if (named === null || named === '') return workspaces.primary().id;
  const workspace = workspaces.byId(named) ?? (isAbsolute(named) ? workspaces.select(named) : undefined);
  if (!workspace) {
    throw new BerthError('workspace_mismatch', `No workspace ${JSON.stringify(named)}; name a workspace id or its absolute root`, {
      requestedWorkspace: named,
    });
  }
  if (workspace.kind !== 'local') {
    throw new BerthError(
      'workspace_mismatch',
      `Workspace ${named} is remote: connect the application to its owner's daemon (berth connect --tools-listen) instead`,
      { requestedWorkspace: named },
    );
  }
  return workspace.id;
}
