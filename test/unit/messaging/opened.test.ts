import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { silentLogger } from '../../../src/log.js';
import type { InboxMessage, ModuleInboxRepository, ModuleTabRepository } from '../../../src/messaging/records.js';
import { MessagingService } from '../../../src/messaging/service.js';
import type { Session } from '../../../src/sessions/session.js';
import { ManualClock } from '../../support/events.js';

/** An inbox that records whose oldest message was asked for, and holds none. */
function askedInbox(asked: string[]): ModuleInboxRepository {
  return {
    add: async () => undefined,
    list: async () => [],
    oldest: async (sessionId: string): Promise<InboxMessage | undefined> => {
      asked.push(sessionId);
      return undefined;
    },
    count: async () => 0,
    takeAll: async () => [],
    take: async () => false,
  };
}

function numberedTabs(): ModuleTabRepository {
  let next = 0;
  return {
    find: async () => undefined,
    assign: async () => ++next,
    sessionsForToken: async () => [],
    hasToken: async () => false,
    replaceTokens: async () => undefined,
    addToken: async () => undefined,
  };
}

/** What opening a tab and offering it a message look at. */
const idleSession = (id: string) => ({ id, workspace: { id: 'w1' }, closed: false, hasActivePrompt: false }) as unknown as Session;

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setImmediate(r));
}

describe('a session opening as a tab', () => {
  it('reads the inbox of a restored session but not of a fresh one, which nobody could have written to', async () => {
    const asked: string[] = [];
    const messaging = new MessagingService({ clock: new ManualClock(1000), log: silentLogger(), tabs: numberedTabs(), inbox: askedInbox(asked) });
    await messaging.opened(idleSession('fresh'), true);
    await messaging.opened(idleSession('restored'), false);
    // The restored session's offer was queued after the fresh one's would have been.
    await until(() => asked.length > 0);
    assert.deepEqual(asked, ['restored']);
    assert.deepEqual([messaging.tab('fresh')?.tab, messaging.tab('restored')?.tab], [1, 2], 'both are tabs');
  });
});
