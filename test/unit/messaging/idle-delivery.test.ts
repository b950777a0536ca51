import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ContentBlock } from '../../../src/agents/driver.js';
import { silentLogger } from '../../../src/log.js';
import type { InboxMessage, ModuleInboxRepository, ModuleTabRepository } from '../../../src/messaging/records.js';
import { MessagingService } from '../../../src/messaging/service.js';
import type { Session } from '../../../src/sessions/session.js';
import { ManualClock } from '../../support/events.js';

/** An inbox in memory that counts its reads of the oldest message (one PostgreSQL round trip each). */
class CountingInbox implements ModuleInboxRepository {
  readonly messages: InboxMessage[] = [];
  reads = 0;
  async add(m: InboxMessage): Promise<void> {
    this.messages.push(m);
  }
  async list(sessionId: string): Promise<InboxMessage[]> {
    return this.messages.filter((m) => m.toSessionId === sessionId);
  }
  async oldest(sessionId: string): Promise<InboxMessage | undefined> {
    this.reads++;
    return this.messages.find((m) => m.toSessionId === sessionId);
  }
  async count(sessionId: string): Promise<number> {
    return (await this.list(sessionId)).length;
  }
  async takeAll(sessionId: string): Promise<InboxMessage[]> {
    const taken = await this.list(sessionId);
    this.messages.splice(0, this.messages.length, ...this.messages.filter((m) => m.toSessionId !== sessionId));
    return taken;
  }
  async take(id: string): Promise<boolean> {
    const at = this.messages.findIndex((m) => m.id === id);
    if (at >= 0) this.messages.splice(at, 1);
    return at >= 0;
  }
}

const tabs = {
  assign: async () => 1,
  find: async () => undefined,
  sessionsForToken: async () => [],
  hasToken: async () => false,
  replaceTokens: async () => undefined,
} as unknown as ModuleTabRepository;

/** The little of a session delivery looks at: whether it works now, and the prompts it was given. */
function fakeSession() {
  const prompts: ContentBlock[][] = [];
  const session = {
    id: 's1',
    workspace: { id: 'w1' },
    closed: false,
    hasActivePrompt: false,
    submit: async (content: ContentBlock[]) => (prompts.push(content), { promptId: `p${prompts.length}` }),
    publish: () => undefined,
  };
  return { session, prompts, asSession: session as unknown as Session };
}

/** Lets the offers queued on the tab (promises and the opening's setImmediate) run to their end. */
const settle = () => new Promise((r) => setTimeout(r, 5));

describe('a tab going idle', () => {
  it('reads its inbox only when a message may wait there, and still gets one that came while it worked', async () => {
    const inbox = new CountingInbox();
    const service = new MessagingService({ clock: new ManualClock(), log: silentLogger(), tabs, inbox });
    const { session, prompts, asSession } = fakeSession();
    await service.opened(asSession);
    await settle();
    assert.equal(inbox.reads, 1, 'the opening reads what waited for the session');

    // Prompts that end with nothing sent meanwhile: no read at each idle.
    service.idle(asSession);
    service.idle(asSession);
    await settle();
    assert.equal(inbox.reads, 1);

    // A message comes while the session works: it waits, and the next idle hands it over.
    session.hasActivePrompt = true;
    await inbox.add({ id: 'm1', toSessionId: 's1', fromSessionId: 's2', fromTab: 2, fromLabel: 'built-in', kind: 'info', text: 'hello', hop: 1, sentAt: 0 });
    assert.match((await service.here.offerHere('s1', 'm1'))!, /Waiting: .* is working/);
    session.hasActivePrompt = false;
    service.idle(asSession);
    await settle();
    assert.equal(prompts.length, 1, 'the waiting message became the next prompt');
    assert.equal(inbox.messages.length, 0);

    // After a delivery another message may wait: the next idle reads once, finds none, and the one after reads nothing.
    const before = inbox.reads;
    service.idle(asSession);
    await settle();
    service.idle(asSession);
    await settle();
    assert.equal(inbox.reads, before + 1);
  });

  it('does not read the inbox of a session created just now when its first turn ends, yet delivers what came during it', async () => {
    const inbox = new CountingInbox();
    const service = new MessagingService({ clock: new ManualClock(), log: silentLogger(), tabs, inbox });
    const { session, prompts, asSession } = fakeSession();
    await service.opened(asSession, true);
    service.idle(asSession);
    await settle();
    assert.equal(inbox.reads, 0, 'nothing can wait for a session that did not exist before');

    session.hasActivePrompt = true;
    await inbox.add({ id: 'm1', toSessionId: 's1', fromSessionId: 's2', fromTab: 2, fromLabel: 'built-in', kind: 'info', text: 'hello', hop: 1, sentAt: 0 });
    await service.here.offerHere('s1', 'm1');
    session.hasActivePrompt = false;
    service.idle(asSession);
    await settle();
    assert.equal(prompts.length, 1, 'the message that came during the turn became the next prompt');
  });
});
