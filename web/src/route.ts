/** Where the address (its hash) points: a session, the file browser, the workspace panel, or home. */
export type Route = { kind: 'home' } | { kind: 'session'; id: string } | { kind: 'files' } | { kind: 'workspace' };

export function parseRoute(hash: string): Route {
  const session = /^#\/s\/([0-9a-fA-F-]{36})$/.exec(hash);
  if (session) return { kind: 'session', id: session[1]! };
  return hash === '#/files' ? { kind: 'files' } : hash === '#/workspace' ? { kind: 'workspace' } : { kind: 'home' };
}
