import { createConnection } from 'node:net';
import { MODULE_CLIENT_TIMEOUT_MS } from './limits.js';
import type { Answer } from '../messaging/types.js';

export interface ExchangeOptions {
  /** Give up after this long (default MODULE_CLIENT_TIMEOUT_MS). */
  readonly timeoutMs?: number;
}

/**
 * Writes `bytes` to a module socket exactly as given, closes the writing side,
 * and resolves with everything the daemon wrote back before it closed. The
 * raw form lets tests send what no well-behaved client would.
 */
export function exchangeLine(socketPath: string, bytes: string | Uint8Array, options: ExchangeOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(socketPath);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer from ${socketPath} within ${options.timeoutMs ?? MODULE_CLIENT_TIMEOUT_MS} ms`));
    }, options.timeoutMs ?? MODULE_CLIENT_TIMEOUT_MS);
    socket.on('connect', () => socket.end(bytes));
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', (err) => {
      clearTimeout(timer);
      socket.destroy();
      reject(err);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
  });
}

/** Asks one module-protocol question (docs/modules.md) and parses the one answer line. */
export async function askModule(socketPath: string, question: Record<string, unknown>, options: ExchangeOptions = {}): Promise<Answer> {
  const text = await exchangeLine(socketPath, JSON.stringify(question) + '\n', options);
  const line = text.split('\n', 1)[0] ?? '';
  try {
    return JSON.parse(line) as Answer;
  } catch {
    throw new Error(`the daemon's answer is not one JSON line: ${JSON.stringify(text.slice(0, 200))}`);
  }
}
