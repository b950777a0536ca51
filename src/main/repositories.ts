import type { GatewayCallRepository } from '../gateway/host/call-journal.js';
import type { PinStore } from '../gateway/owner/pin.js';
import type { ModuleInboxRepository, ModuleTabRepository } from '../messaging/records.js';
import type { PromptRepository, PromptTerminal, SessionRepository } from '../sessions/records.js';
import { SqliteGatewayCallRepository } from '../store/repos/gateway-calls.js';
import { SqliteMetaRepository } from '../store/repos/meta.js';
import { SqliteModuleInboxRepository } from '../store/repos/module-inbox.js';
import { SqliteModuleTabRepository } from '../store/repos/module-tabs.js';
import { SqlitePermissionGrantRepository } from '../store/repos/permission-grants.js';
import { SqliteCheckpointRepository } from '../store/repos/checkpoints.js';
import type { CheckpointRepository } from '../tools/checkpoints/records.js';
import type { PermissionGrantRepository } from '../sessions/grants.js';
import type { GrantScope } from '../sessions/permission-options.js';
import { SqlitePromptRepository } from '../store/repos/prompts.js';
import { SqliteReceiptRepository } from '../store/repos/receipts.js';
import { SqliteSessionRepository } from '../store/repos/sessions.js';
import { SqliteTokenRepository } from '../store/repos/tokens.js';
import { SqliteTranscriptRepository } from '../store/repos/transcript.js';
import type { Db } from '../store/sqlite.js';
import type { Policy, TokenRepository } from '../tokens/tokens.js';
import type { ReceiptRepository } from '../tools/receipt-journal.js';
import type { SecretStore } from '../transcript/secret.js';
import type { TranscriptRepository } from '../transcript/records.js';
import type { ToolOutcome } from '../tools/types.js';
import type { MessageKind } from '../messaging/types.js';
import type { SessionStores } from '../sessions/factories.js';

/**
 * Every repository the daemon's modules use, each typed by the interface its
 * user declares. This is where the store meets the modules: the store knows
 * only rows and SQL, the modules only their interfaces, and the compiler
 * checks here that the SQLite classes fit them. A server database would be a
 * second function of this shape.
 */
export interface Repositories {
  readonly sessions: SessionRepository;
  readonly transcript: TranscriptRepository;
  readonly prompts: PromptRepository;
  readonly receipts: ReceiptRepository;
  readonly tokens: TokenRepository;
  readonly meta: PinStore & SecretStore;
  readonly moduleTabs: ModuleTabRepository;
  readonly moduleInbox: ModuleInboxRepository;
  readonly gatewayCalls: GatewayCallRepository;
  readonly grants: PermissionGrantRepository;
  readonly checkpoints: CheckpointRepository;
  /**
   * The repositories one session's run writes through, each write naming that session so a
   * cluster node fences it by the session's lease (docs/cluster-leases.md, Fencing); PostgreSQL only.
   */
  readonly ofSession?: (sessionId: string) => SessionStores;
}

/** The SQLite repositories of one open database, each built (and its statements prepared) on first use. */
export function sqliteRepositories(db: Db): Repositories {
  const built = new Map<keyof Repositories, unknown>();
  const once = <K extends keyof Repositories>(key: K, make: () => Repositories[K]): Repositories[K] => {
    if (!built.has(key)) built.set(key, make());
    return built.get(key) as Repositories[K];
  };
  return {
    get sessions() {
      return once('sessions', () => new SqliteSessionRepository(db));
    },
    get transcript() {
      return once('transcript', () => new SqliteTranscriptRepository(db));
    },
    get prompts() {
      return once('prompts', () => new SqlitePromptRepository<PromptTerminal>(db));
    },
    get receipts() {
      return once('receipts', () => new SqliteReceiptRepository<ToolOutcome>(db));
    },
    get tokens() {
      return once('tokens', () => new SqliteTokenRepository<Policy>(db));
    },
    get meta() {
      return once('meta', () => new SqliteMetaRepository(db));
    },
    get moduleTabs() {
      return once('moduleTabs', () => new SqliteModuleTabRepository(db));
    },
    get moduleInbox() {
      return once('moduleInbox', () => new SqliteModuleInboxRepository<MessageKind>(db));
    },
    get gatewayCalls() {
      return once('gatewayCalls', () => new SqliteGatewayCallRepository(db));
    },
    get grants() {
      return once('grants', () => new SqlitePermissionGrantRepository<GrantScope, 'allow' | 'reject'>(db));
    },
    get checkpoints() {
      return once('checkpoints', () => new SqliteCheckpointRepository(db));
    },
  };
}
