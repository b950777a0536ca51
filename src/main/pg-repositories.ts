import type { PromptTerminal } from '../sessions/records.js';
import type { GrantScope } from '../sessions/permission-options.js';
import type { MessageKind } from '../messaging/types.js';
import type { Policy } from '../tokens/tokens.js';
import type { ToolOutcome } from '../tools/types.js';
import { PgCheckpointRepository } from '../store/pg/checkpoints.js';
import type { PgDb } from '../store/pg/db.js';
import { PgGatewayCallRepository } from '../store/pg/gateway-calls.js';
import { PgMetaRepository } from '../store/pg/meta.js';
import { PgModuleInboxRepository } from '../store/pg/module-inbox.js';
import { PgModuleTabRepository, TabsWithRows } from '../store/pg/module-tabs.js';
import { PgPermissionGrantRepository } from '../store/pg/permission-grants.js';
import { PgPromptRepository } from '../store/pg/prompts.js';
import { PgReceiptRepository } from '../store/pg/receipts.js';
import { PgSessionRepository } from '../store/pg/sessions.js';
import { PgTokenRepository } from '../store/pg/tokens.js';
import { PgTranscriptRepository } from '../store/pg/transcript.js';
import type { Repositories } from './repositories.js';

/**
 * The PostgreSQL repositories of one open connection, typed like
 * `sqliteRepositories` by the interfaces their users declare, so the compiler
 * checks here that the PostgreSQL classes fit them too (docs/store.md). `nodeId`: this
 * node's, in a cluster, where each session's own repositories (`ofSession`) write for it.
 */
export function postgresRepositories(db: PgDb, nodeId: string | null = null): Repositories {
  // The daemon opens every session it creates as a tab: its row's write gives it its number.
  const tabs = new TabsWithRows();
  // One cache of next seqs for every view of the connection, so a session's writes number on from each other's.
  const seqs = new Map<string, number>();
  return {
    sessions: new PgSessionRepository(db, tabs),
    transcript: new PgTranscriptRepository(db, seqs),
    prompts: new PgPromptRepository<PromptTerminal>(db),
    receipts: new PgReceiptRepository<ToolOutcome>(db),
    tokens: new PgTokenRepository<Policy>(db),
    meta: new PgMetaRepository(db),
    moduleTabs: new PgModuleTabRepository(db, tabs),
    moduleInbox: new PgModuleInboxRepository<MessageKind>(db),
    gatewayCalls: new PgGatewayCallRepository(db, nodeId),
    grants: new PgPermissionGrantRepository<GrantScope, 'allow' | 'reject'>(db),
    checkpoints: new PgCheckpointRepository(db),
    ofSession: (sessionId) => {
      const writes = db.for(sessionId);
      return {
        sessions: new PgSessionRepository(writes, tabs),
        transcript: new PgTranscriptRepository(writes, seqs),
        prompts: new PgPromptRepository<PromptTerminal>(writes),
        grants: new PgPermissionGrantRepository<GrantScope, 'allow' | 'reject'>(writes),
        checkpoints: new PgCheckpointRepository(writes),
      };
    },
  };
}
