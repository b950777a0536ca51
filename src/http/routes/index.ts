import type { HttpModule } from '../module.js';
import { createDiscoveryModule } from './discovery.js';
import { workspaceReadsModule } from './workspace-reads.js';
import { workspaceToolsModule } from './workspace-tools.js';

/** Every client-API route module this build serves, in registration order. */
export const httpModules: readonly HttpModule[] = [
  createDiscoveryModule(() => httpModules),
  workspaceToolsModule,
  workspaceReadsModule,
];
