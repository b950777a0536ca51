import type { Clock } from '../clock.js';
import type { Config } from '../config/config.js';
import type { Logger } from '../log.js';
import type { SessionFactories, SessionStores } from './factories.js';
import { TranscriptRecorder } from './recorder.js';
import { AGENT_DIED } from './recovery.js';
import { runWorkspaceOf } from './run-workspace.js';
import { Session, type SessionInit } from './session.js';
import { SessionRewinder, type RewindPorts } from './rewind.js';
import { CHECKPOINT_BUDGET_BYTES } from '../tools/limits.js';
import { withCheckpoints } from '../tools/checkpoints/capture.js';
import { CheckpointBook } from '../tools/checkpoints/records.js';
import { MemoryCheckpointRepository } from '../tools/checkpoints/memory.js';
import { WriteChain } from '../write-chain.js';

export interface SpawnOptions {
  readonly modelServiceId?: string;
  readonly modelId?: string | null;
  /** True for a session read back from the store (its row exists); false writes a fresh row. */
  readonly persisted?: boolean;
  /** Ids already used by a restored session's replay snapshot, so live ids continue after them. */
  readonly lastEventId?: number;
}

export interface Spawned {
  readonly session: Session;
  readonly modelApplied?: boolean;
  readonly modelError?: string;
}

/** What spawning needs from the registry of live sessions. */
export interface SpawnHost {
  readonly config: Config;
  readonly clock: Clock;
  readonly log: Logger;
  /** The session's own repositories: in cluster mode, each write names it, so its lease fences it. */
  readonly stores: SessionStores;
  readonly factories: SessionFactories;
  /** Throws when the session may not become live now (its id taken meanwhile, or the limit reached). */
  checkAdmissible(id: string): void;
  onClosed(session: Session): void;
}

/**
 * Builds a live session from its init: the driver (which may take a while,
 * so admission is checked again after it), the bus, the transcript recorder,
 * and for a fresh session its stored row.
 */
export async function spawnSession(host: SpawnHost, init: SessionInit, options: SpawnOptions): Promise<Spawned> {
  const { config, clock, log, factories, stores } = host;
  const runWorkspace = runWorkspaceOf(init);
  const driverResult = await factories.createDriver({
    sessionId: init.id,
    workspace: runWorkspace,
    cwd: init.cwd,
    modelServiceId: options.modelServiceId,
    modelId: options.modelId,
  });
  try {
    host.checkAdmissible(init.id);
  } catch (err) {
    driverResult.driver.dispose();
    throw err;
  }
  const bus = factories.createBus({ sessionId: init.id, ...(options.lastEventId ? { lastEventId: options.lastEventId } : {}) });
  let session!: Session;
  const writes = new WriteChain(log, { sessionId: init.id });
  const transcript = new TranscriptRecorder(init.id, stores.transcript, clock, writes, () => {
    session.publish({ type: 'session_recording_degraded', data: { sessionId: init.id, reason: 'write_failed' } });
  });
  // Every file effect of the session is checkpointed at the tool layer; a rewind puts files back without it.
  const tools = factories.toolsFor(runWorkspace, init.id);
  const checkpoints = new CheckpointBook(stores.checkpoints ?? new MemoryCheckpointRepository(), init.id, CHECKPOINT_BUDGET_BYTES);
  const rewindPorts: RewindPorts = {
    sessionId: init.id,
    transcript: stores.transcript,
    checkpoints,
    tools,
    driver: driverResult.driver,
    runningPromptId: () => session.runningPromptId(),
    busy: () => session.hasActivePrompt,
    publish: (input) => void session.publish(input),
    flushTranscript: () => session.flushTranscript(),
  };
  session = new Session(init, {
    clock,
    log,
    config,
    bus,
    driver: driverResult.driver,
    tools: withCheckpoints(tools, checkpoints, () => session.runningPromptId(), clock),
    rewinder: new SessionRewinder(rewindPorts),
    transcript,
    writes,
    prompts: stores.prompts,
    sessions: stores.sessions,
    ...(stores.grants ? { grants: stores.grants } : {}),
    onClosed: (s) => host.onClosed(s),
    onIdle: (s) => factories.sessionIdle?.(s),
  });
  if (!options.persisted) await session.recordCreated();
  // After the turn it broke has settled with its own turn_error (issue 12: turn_error, then session_died).
  driverResult.driver.onUpdate?.((update) => session.publish({ type: 'session_update', data: { sessionId: init.id, update } }));
  driverResult.driver.onExit?.((exit) => setImmediate(() => session.close(AGENT_DIED, null, 'session_closed', exit)));
  return {
    session,
    ...(driverResult.modelApplied !== undefined ? { modelApplied: driverResult.modelApplied } : {}),
    ...(driverResult.modelError !== undefined ? { modelError: driverResult.modelError } : {}),
  };
}
