import { DEFAULT_FRAME_BYTES } from '../protocol/limits.js';
import { BEARER_SUBPROTOCOL_PREFIX, TOOL_SUBPROTOCOL } from '../protocol/toolproto/subprotocol.js';

/**
 * The SDK's only contact with a WebSocket implementation, so the rest runs
 * unchanged in Node 20 (the `ws` package, token in `Authorization`) and in a
 * browser (the global WebSocket, which cannot set headers: the token rides as
 * the `berth.bearer.<token>` subprotocol, never in the URL).
 */
export interface AppSocket {
  send(text: string): void;
  close(code?: number, reason?: string): void;
  onMessage(listener: (text: string, isBinary: boolean) => void): void;
  onClose(listener: (code: number, reason: string) => void): void;
}

/** `auto`: the `ws` package under Node, the global WebSocket anywhere else. */
export type TransportKind = 'auto' | 'node' | 'browser';

/** The daemon refused the upgrade (Node only: browsers do not reveal the HTTP answer). */
export class ConnectRefused extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'ConnectRefused';
  }
}

export async function openSocket(url: string, token: string, kind: TransportKind): Promise<AppSocket> {
  const node = kind === 'node' || (kind === 'auto' && isNode());
  return node ? openNodeSocket(url, token) : openBrowserSocket(url, token);
}

function isNode(): boolean {
  return typeof (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node === 'string';
}

async function openNodeSocket(url: string, token: string): Promise<AppSocket> {
  // Loaded only here, so a browser bundle never needs it.
  const { WebSocket } = await import('ws');
  const ws = new WebSocket(url, [TOOL_SUBPROTOCOL], {
    headers: { authorization: `Bearer ${token}` },
    maxPayload: DEFAULT_FRAME_BYTES,
    perMessageDeflate: false,
  });
  const inbox = new Inbox();
  ws.on('message', (data, isBinary) => inbox.deliver(isBinary ? '' : data.toString(), isBinary));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        let parsed: { code?: string; error?: string } = {};
        try {
          parsed = JSON.parse(body);
        } catch {
          /* not JSON */
        }
        reject(new ConnectRefused(res.statusCode ?? 0, parsed.code, parsed.error ?? `The daemon refused the connection (${res.statusCode})`));
        ws.terminate();
      });
    });
  });
  ws.on('error', () => undefined); // every error is followed by 'close', which the app hears
  return {
    send: (text) => ws.send(text),
    close: (code, reason) => ws.close(code, reason),
    onMessage: (listener) => inbox.listen(listener),
    onClose: (listener) => ws.on('close', (code, reason) => listener(code, reason.toString())),
  };
}

/** Holds frames that arrive before the app listens (the host may query the moment the socket opens). */
class Inbox {
  private held: Array<[string, boolean]> | null = [];
  private listener: ((text: string, isBinary: boolean) => void) | null = null;

  deliver(text: string, isBinary: boolean): void {
    if (this.listener) this.listener(text, isBinary);
    else this.held?.push([text, isBinary]);
  }

  listen(listener: (text: string, isBinary: boolean) => void): void {
    this.listener = listener;
    const held = this.held ?? [];
    this.held = null;
    for (const [text, isBinary] of held) listener(text, isBinary);
  }
}

/** The slice of the DOM WebSocket the SDK uses (the project compiles without the DOM library). */
interface BrowserSocket {
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'open' | 'error', listener: () => void): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
  addEventListener(type: 'close', listener: (event: { code: number; reason: string }) => void): void;
}
type BrowserSocketConstructor = new (url: string, protocols: string[]) => BrowserSocket;

async function openBrowserSocket(url: string, token: string): Promise<AppSocket> {
  const Socket = (globalThis as { WebSocket?: BrowserSocketConstructor }).WebSocket;
  if (!Socket) throw new Error('No WebSocket implementation: in Node, use transport "node" (the ws package)');
  const ws = new Socket(url, [TOOL_SUBPROTOCOL, BEARER_SUBPROTOCOL_PREFIX + token]);
  const inbox = new Inbox();
  ws.addEventListener('message', (event) => (typeof event.data === 'string' ? inbox.deliver(event.data, false) : inbox.deliver('', true)));
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener('open', () => resolve());
    ws.addEventListener('error', () => reject(new Error('The WebSocket connection failed (refused, unauthorized or unreachable)')));
  });
  return {
    send: (text) => ws.send(text),
    close: (code, reason) => ws.close(code, reason),
    onMessage: (listener) => inbox.listen(listener),
    onClose: (listener) => ws.addEventListener('close', (event) => listener(event.code, event.reason)),
  };
}
