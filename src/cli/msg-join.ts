import { ConfigError } from '../config/config.js';

/** What `POST /session/{id}/module/join` hands a second terminal: the workspace socket and a token of its own. */
export interface JoinedTab {
  readonly socket: string;
  readonly token: string;
}

/**
 * `berth msg --session ID` without a module token (issue 11): asks the
 * daemon's client API, as its owner, for one more token of that session's tab.
 * The tokens the tab already holds keep working; this one lives only in this
 * process and is never printed.
 */
export async function joinTab(url: string, sessionId: string, ownerToken: string | undefined): Promise<JoinedTab> {
  const base = url.replace(/\/+$/, '');
  let res: Response;
  try {
    res = await fetch(`${base}/session/${encodeURIComponent(sessionId)}/module/join`, {
      method: 'POST',
      headers: ownerToken ? { authorization: `Bearer ${ownerToken}` } : {},
    });
  } catch (err) {
    throw new ConfigError(`no daemon answered at ${base} (${(err as Error).message}); pass --url or set BERTH_URL`);
  }
  const body = (await res.json().catch(() => ({}))) as { token?: unknown; socket?: unknown; error?: unknown };
  if (!res.ok) {
    const why = typeof body.error === 'string' ? body.error : `HTTP ${res.status}`;
    const hint = res.status === 401 ? ' (set BERTH_TOKEN to the daemon\'s owner token)' : '';
    throw new ConfigError(`the daemon at ${base} did not let this terminal join session ${sessionId}: ${why}${hint}`);
  }
  if (typeof body.token !== 'string' || typeof body.socket !== 'string') {
    throw new ConfigError(`session ${sessionId} has no module socket on the daemon at ${base} (is it a remote workspace?)`);
  }
  return { token: body.token, socket: body.socket };
}
