import type { AgentDriver } from '../../src/agents/driver.js';
import { resolveConfig } from '../../src/config/config.js';
import { EventBus } from '../../src/events/bus.js';
import { silentLogger } from '../../src/log.js';
import { sqliteRepositories } from '../../src/main/repositories.js';
import { SessionManager } from '../../src/sessions/manager.js';
import type { PromptRepository } from '../../src/sessions/records.js';
import { openStore, type Store } from '../../src/store/db.js';
import { SqliteSessionRepository } from '../../src/store/repos/sessions.js';
import { SqliteTranscriptRepository } from '../../src/store/repos/transcript.js';
import { WorkspaceRegistry } from '../../src/workspace/registry.js';
import type { ManualClock } from './events.js';
import { removeDir, tempDir } from './tmp.js';

/** A session manager on a fresh SQLite home and one workspace, its drivers built by the test; no face, no tools. */
export interface SqliteSessions {
  readonly manager: SessionManager;
  readonly store: Store;
  readonly workspace: string;
  readonly sessions: SqliteSessionRepository;
  readonly transcript: SqliteTranscriptRepository;
  readonly prompts: PromptRepository;
  close(): void;
}

export function sqliteSessions(options: {
  clock: ManualClock;
  createDriver: () => Promise<AgentDriver>;
  /** The prompt ledger the sessions use, given the one of the store (to watch its calls). */
  prompts?: (stored: PromptRepository) => PromptRepository;
}): SqliteSessions {
  const { clock } = options;
  const home = tempDir('berth-home-');
  const workspace = tempDir('berth-ws-');
  const store = openStore(home);
  const config = resolveConfig({ home, workspaces: [workspace], logLevel: 'silent' }, {});
  const sessions = new SqliteSessionRepository(store.db);
  const transcript = new SqliteTranscriptRepository(store.db);
  const prompts = sqliteRepositories(store.db).prompts;
  const manager = new SessionManager({
    config,
    clock,
    log: silentLogger(),
    workspaces: new WorkspaceRegistry(config.workspaces),
    stores: { sessions, transcript, prompts: options.prompts ? options.prompts(prompts) : prompts },
    factories: {
      createBus: (bus) => new EventBus({ ringSize: 100, clock, ...bus }),
      createDriver: async () => ({ driver: await options.createDriver() }),
      toolsFor: () => ({ definitions: () => [], run: async () => ({ ok: true, result: { value: null } }) }),
    },
  });
  return {
    manager,
    store,
    workspace,
    sessions,
    transcript,
    prompts,
    close() {
      store.close();
      removeDir(home);
      removeDir(workspace);
    },
  };
}
