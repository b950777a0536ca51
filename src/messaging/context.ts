import type { Logger } from '../log.js';
import type { TabPeers } from './peers.js';
import type { ModuleInboxRepository } from './records.js';
import type { MessageRules } from './rules.js';
import type { TabDirectory } from './tabs.js';

/** What the messaging operations share: the tabs, the inboxes, the rules, and how ids are made. */
export interface MessagingContext {
  readonly log: Logger;
  readonly tabs: TabDirectory;
  readonly inbox: ModuleInboxRepository;
  readonly rules: MessageRules;
  readonly newId: () => string;
  /** The other nodes' tabs in cluster mode; undefined on a daemon alone. */
  peers: TabPeers | undefined;
}
