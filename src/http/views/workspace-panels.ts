import type { TabView } from '../../messaging/index.js';
import type { InboxMessage } from '../../messaging/records.js';
import { availabilityOf, definitionOf, definitionRevision } from '../../protocol/tools/definitions.js';
import type { Tool } from '../../tools/types.js';
import type { TranscriptRecord } from '../../transcript/records.js';

/**
 * Wire shapes of the read-only workspace panels (`GET /workspace/{cwd}/tabs`,
 * `GET /workspace/{cwd}/applications`, docs/client-api.md "Workspace panels"):
 * Berth's own routes beside the 25 operations, for the web app.
 */

const iso = (ms: number) => new Date(ms).toISOString();

export function inboxMessageView(m: InboxMessage) {
  return { messageId: m.id, fromTab: String(m.fromTab), from: m.fromLabel, kind: m.kind, text: m.text, hop: m.hop, sentAt: iso(m.sentAt) };
}

/** A `module_message` transcript record: what the tab sent (`out`) or received (`in`), as its event carried it. */
export function moduleMessageView(r: TranscriptRecord) {
  return { recordId: r.recordId, at: iso(r.at), ...r.data };
}

export function tabView(tab: TabView & { readonly inbox: readonly InboxMessage[] }, messages: readonly TranscriptRecord[]) {
  const { inbox, socket: _socket, ...rest } = tab;
  return { ...rest, inbox: inbox.map(inboxMessageView), messages: messages.map(moduleMessageView) };
}

export function applicationView(app: { applicationId: string; connected: boolean; tools: readonly Tool[] }) {
  return {
    applicationId: app.applicationId,
    connected: app.connected,
    tools: app.tools.map((t) => {
      const definition = definitionOf(t);
      const availability = availabilityOf(t);
      return {
        name: t.name,
        ...(t.title !== undefined ? { title: t.title } : {}),
        description: t.description,
        category: t.category,
        policy: t.policy,
        inputSchema: t.inputSchema,
        annotations: t.annotations,
        definitionRevision: definitionRevision(definition),
        available: availability.available,
        ...(availability.available ? {} : { reason: availability.reason }),
      };
    }),
  };
}
