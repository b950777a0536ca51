import type { TestDaemon } from './daemon.js';

/** A session of a test daemon as the module protocol sees it, with the token shown when it was issued. */
export interface OpenedTab {
  readonly sessionId: string;
  readonly tab: string;
  readonly token: string;
  readonly socket: string;
}

/** Creates a thread-scoped session over HTTP and reads its module access (`GET /session/{id}/module`). */
export async function openTab(daemon: TestDaemon, body: Record<string, unknown> = {}): Promise<OpenedTab> {
  const created = await daemon.json('POST', '/session', { sessionScope: 'thread', ...body });
  if (created.status !== 200) throw new Error(`POST /session answered ${created.status}: ${JSON.stringify(created.body)}`);
  const sessionId = created.body.sessionId as string;
  const access = await daemon.json('GET', `/session/${sessionId}/module`);
  if (access.status !== 200) throw new Error(`GET /session/${sessionId}/module answered ${access.status}`);
  return { sessionId, tab: access.body.tab, token: access.body.token, socket: access.body.socket };
}

/** Polls `check` on each turn of the event loop until it holds (no clock involved). */
export async function until(check: () => boolean | Promise<boolean>, what = 'condition'): Promise<void> {
  for (let i = 0; i < 2_000; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`gave up waiting for ${what}`);
}
