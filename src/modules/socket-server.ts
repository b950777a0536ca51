import { chmod, unlink } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { MODULE_MAX_CONNECTIONS, MODULE_READ_TIMEOUT_MS } from './limits.js';
import { MODULE_MOST_LINE } from '../protocol/limits.js';
import type { Logger } from '../log.js';
import { answerLine } from '../messaging/answer.js';
import type { Answer } from '../messaging/types.js';
import { serveConnection } from './connection.js';
import { clearStaleSocket, prepareSocketDir, type SocketPlace } from './socket-path.js';

export interface ModuleSocketOptions {
  readonly place: SocketPlace;
  readonly log: Logger;
  /** Answers one question line for this workspace (the messaging core). */
  answer(line: Buffer): Promise<Answer>;
  readonly maxConnections?: number;
  readonly readTimeoutMs?: number;
}

/** One workspace's module socket: listening, bounded, and closed once. */
export interface ModuleSocket {
  readonly path: string;
  close(): Promise<void>;
}

/**
 * Listens on a workspace's Unix socket (docs/modules.md): the
 * folder is 0700 and the socket 0600, a stale socket file is replaced, at most
 * `maxConnections` peers are served at once (more are closed unanswered), and
 * every connection is bounded in time and size by `serveConnection`.
 */
export async function listenModuleSocket(options: ModuleSocketOptions): Promise<ModuleSocket> {
  const { place, log } = options;
  const readTimeoutMs = options.readTimeoutMs ?? MODULE_READ_TIMEOUT_MS;
  await prepareSocketDir(place.dir);
  await clearStaleSocket(place.path);
  const tooLong = answerLine({
    ok: false,
    code: 'malformed',
    text: `Malformed question: the line is longer than ${MODULE_MOST_LINE} bytes, so it was not read; nothing in it was acted on.`,
  });
  const tooSlow = answerLine({
    ok: false,
    code: 'malformed',
    text: `No whole question arrived within ${readTimeoutMs} ms; nothing was acted on.`,
  });
  const answer = async (line: Buffer): Promise<string> => {
    try {
      return answerLine(await options.answer(line));
    } catch (err) {
      log.error({ err, socket: place.path }, 'module question failed');
      return answerLine({ ok: false, code: 'internal_error', text: 'Berth could not answer this question; see the daemon log.' });
    }
  };
  const open = new Set<Socket>();
  const server: Server = createServer({ allowHalfOpen: true }, (socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    serveConnection(socket, { maxLineBytes: MODULE_MOST_LINE, readTimeoutMs, answer, tooLong, tooSlow });
  });
  server.maxConnections = options.maxConnections ?? MODULE_MAX_CONNECTIONS;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(place.path, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (err) => log.warn({ err, socket: place.path }, 'module socket error'));
  await chmod(place.path, 0o600);

  let closing: Promise<void> | undefined;
  return {
    path: place.path,
    close() {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          // Shutdown does not wait for peers still writing their question.
          for (const socket of open) socket.destroy();
        });
        await unlink(place.path).catch(() => undefined);
      })();
      return closing;
    },
  };
}
