import type { Core } from '../core.js';
import { listenModuleSocket, type ModuleSocket } from './socket-server.js';
import { socketPlace } from './socket-path.js';

export { askModule, exchangeLine } from './client.js';
export { listenModuleSocket, type ModuleSocket } from './socket-server.js';
export { socketPlace } from './socket-path.js';

/** Every local workspace's module socket, closed together. */
export interface ModuleSockets {
  readonly sockets: readonly ModuleSocket[];
  close(): Promise<void>;
}

/**
 * The module protocol's face (docs/modules.md): one Unix socket per local workspace
 * under the daemon home, each answering with the messaging core and
 * advertised through it (`/capabilities` `workspaces[].moduleSocket`).
 * Remote workspaces have no socket: their agents run elsewhere.
 */
export async function startModuleSockets(core: Core): Promise<ModuleSockets> {
  const sockets: ModuleSocket[] = [];
  const close = async () => {
    for (const s of sockets) {
      await s.close();
    }
    for (const w of core.workspaces.list()) core.messaging.setSocketPath(w.id, null);
  };
  try {
    for (const workspace of core.workspaces.list()) {
      if (workspace.kind !== 'local') continue;
      const place = socketPlace(core.config.home, workspace.id);
      if (place.fallback) {
        core.log.warn({ workspaceId: workspace.id, socket: place.path }, 'the home path is too long for a Unix socket; the module socket is in the temp dir');
      }
      const socket = await listenModuleSocket({
        place,
        log: core.log,
        answer: (line) => core.messaging.answerQuestion(line, workspace.id),
      });
      sockets.push(socket);
      core.messaging.setSocketPath(workspace.id, socket.path);
      core.log.info({ workspaceId: workspace.id, socket: socket.path }, 'module socket listening');
    }
  } catch (err) {
    await close();
    throw err;
  }
  let closing: Promise<void> | undefined;
  return { sockets, close: () => (closing ??= close()) };
}
