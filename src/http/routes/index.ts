import type { HttpModule } from '../module.js';
import { createDiscoveryModule } from './discovery.js';
import { eventsModule } from './events.js';
import { permissionsModule } from './permissions.js';
import { promptsModule } from './prompts.js';
import { sessionsModule } from './sessions.js';
import { workspaceReadsModule } from './workspace-reads.js';
import { workspaceToolsModule } from './workspace-tools.js';

/** Every client-API route module this build serves, in registration order. */
export const httpModules: readonly HttpModule[] = [
  createDiscoveryModule(() => httpModules),
  sessionsModule,
  promptsModule,
  eventsModule,
  permissionsModule,
  workspaceToolsModule,
  workspaceReadsModule,
];
