import type { AgentDriver } from '../agents/driver.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config/config.js';
import type { Logger } from '../log.js';
import type { PermissionGrantRepository } from './grants.js';
import type { SessionBus, SessionTools, TranscriptSink } from './ports.js';
import type { PromptRepository, SessionRepository } from './records.js';
import type { SessionRewinder } from './rewind.js';
import type { Session } from './session.js';
import type { WriteChain } from '../write-chain.js';

/** What a live session is built on; the manager supplies it (session-spawn.ts). */
export interface SessionServices {
  readonly clock: Clock;
  readonly log: Logger;
  readonly config: Config;
  readonly bus: SessionBus;
  readonly driver: AgentDriver;
  readonly tools: SessionTools;
  readonly transcript: TranscriptSink;
  /** The session's ordered writes from synchronous steps (its row, its transcript, prompt settlements). */
  readonly writes: WriteChain;
  readonly prompts: PromptRepository;
  readonly sessions: SessionRepository;
  readonly grants?: PermissionGrantRepository; // "always" choices (docs/client-api.md §9.6); in memory when absent
  /** Called once the session has closed (the manager forgets it). */
  readonly onClosed: (session: Session) => void;
  /** Called when the FIFO has drained and the session waits for work (module messages are offered then). */
  readonly onIdle?: (session: Session) => void;
  /** Goes back to an earlier turn, one rewind at a time (sessions/rewind.ts). */
  readonly rewinder: Pick<SessionRewinder, 'rewind' | 'assertIdle' | 'snapshots'>;
}
