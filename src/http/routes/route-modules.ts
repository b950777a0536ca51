import type { HttpModule } from '../module.js';
import { createDiscoveryModule } from './discovery.js';
import { eventsModule } from './events.js';
import { historyModule } from './history.js';
import { landingModule } from './landing.js';
import { moduleAccessModule } from './module-access.js';
import { permissionsModule } from './permissions.js';
import { promptsModule } from './prompts.js';
import { sessionsModule } from './sessions.js';
import { workspaceReadsModule } from './workspace-reads.js';
import { workspacePanelsModule } from './workspace-panels.js';
import { workspaceToolsModule } from './workspace-tools.js';
import { webShellSessionModule } from '../webshell/session-extras.js';
import { webShellMidTurnModule } from '../webshell/mid-turn.js';
import { webShellSessionListModule } from '../webshell/session-list.js';
import { webShellWorkspaceModule } from '../webshell/workspace-info.js';
import { webShellWorkspaceStatusModule } from '../webshell/workspace-status.js';
import { webShellWorkspaceSessionsModule } from '../webshell/workspace-sessions.js';
import { webShellPanelsModule } from '../webshell/session-panels.js';
import { webShellShellModule } from '../webshell/shell.js';
import { webShellRefusalsModule } from '../webshell/refusals.js';

/** Every client-API route module this build serves, in registration order. */
export const httpModules: readonly HttpModule[] = [
  createDiscoveryModule(() => httpModules),
  // First after discovery: its hook reopens a session a stopped daemon left before any session route runs.
  historyModule,
  sessionsModule,
  promptsModule,
  eventsModule,
  permissionsModule,
  workspaceToolsModule,
  workspaceReadsModule,
  moduleAccessModule,
  workspacePanelsModule,
  // qwen serve's routes outside the 25 operations that its Web Shell calls (README).
  webShellSessionListModule,
  webShellWorkspaceModule,
  webShellWorkspaceStatusModule,
  webShellWorkspaceSessionsModule,
  webShellSessionModule,
  webShellMidTurnModule,
  webShellPanelsModule,
  webShellShellModule,
  webShellRefusalsModule,
  landingModule,
];
