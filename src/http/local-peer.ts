import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { isLoopbackHost, type Config } from '../config/config.js';
import { canTellLocalUsers, peerUid } from '../net/peer-uid.js';
import { BerthError } from '../protocol/errors/index.js';
import type { TokenService } from '../tokens/tokens.js';
import { sendError } from './errors.js';

/** Each connection's owner, looked up once (net/peer-uid.ts). */
const verdicts = new WeakMap<Socket, Promise<number | null>>();

export interface LocalUserCheck {
  readonly config: Pick<Config, 'hostname'>;
  readonly tokens: TokenService;
}

/**
 * Refuses, with 403 `local_user_denied`, a request on an anonymous loopback
 * daemon from a connection another local user opened. The daemon's own user
 * and root (who can read the daemon's memory anyway) pass.
 */
export function installLocalUserCheck(app: FastifyInstance, ctx: LocalUserCheck): void {
  if (!isLoopbackHost(ctx.config.hostname) || !canTellLocalUsers()) return;
  const me = process.getuid!();
  app.addHook('onRequest', async (request, reply) => {
    if (ctx.tokens.hasOwnerToken) return undefined;
    const socket = request.raw.socket;
    let verdict = verdicts.get(socket);
    if (verdict === undefined) {
      verdict = peerUid(socket).catch(() => null);
      verdicts.set(socket, verdict);
    }
    const uid = await verdict;
    if (uid === me || uid === 0) return undefined;
    return sendError(reply, new BerthError('local_user_denied'));
  });
}
