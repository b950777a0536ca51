import { accessSync, constants } from 'node:fs';
import type { Socket } from 'node:net';
import { endianness } from 'node:os';
import { SocketTable, procTable } from './socket-table.js';

/**
 * Anonymous loopback mode trusts the daemon's own user, not every local user
 * (issue 16, finding 7). On Linux the kernel says who owns the other end of a
 * loopback TCP connection: `/proc/net/tcp{,6}` lists every socket with its
 * owner's uid, so the client's socket is the row whose local address is the
 * peer's and whose remote address is ours. Read once per connection (not per
 * request), and only while the daemon has no token — with one, the token is
 * the credential and anyone holding it may call.
 */

const TABLES = { 4: '/proc/net/tcp', 6: '/proc/net/tcp6' } as const;

/** One reader per table, shared by every lookup (socket-table.ts says why reads are shared and cut short). */
const readers = { 4: new SocketTable(procTable(TABLES[4])), 6: new SocketTable(procTable(TABLES[6])) };

/** `/proc/net/tcp` address form: each 32-bit word of the address printed in host byte order, then `:PORT` in hex. */
export function procAddress(ip: string, port: number): { family: 4 | 6; text: string } | null {
  let bytes: number[];
  let family: 4 | 6;
  if (/^\d+\.\d+\.\d+\.\d+$/.test(ip)) {
    bytes = ip.split('.').map(Number);
    family = 4;
  } else {
    const v6 = ipv6Bytes(ip);
    if (v6 === null) return null;
    bytes = v6;
    family = 6;
  }
  const little = endianness() === 'LE';
  let hex = '';
  for (let i = 0; i < bytes.length; i += 4) {
    const word = bytes.slice(i, i + 4);
    for (const b of little ? word.reverse() : word) hex += b.toString(16).padStart(2, '0');
  }
  return { family, text: `${hex.toUpperCase()}:${port.toString(16).toUpperCase().padStart(4, '0')}` };
}

function ipv6Bytes(ip: string): number[] | null {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return [...new Array(10).fill(0), 0xff, 0xff, ...mapped[1]!.split('.').map(Number)];
  const halves = ip.split('::');
  if (halves.length > 2) return null;
  const parse = (s: string) => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const head = parse(halves[0]!);
  const tail = halves.length === 2 ? parse(halves[1]!) : [];
  const groups = halves.length === 2 ? [...head, ...new Array(8 - head.length - tail.length).fill(0), ...tail] : head;
  if (groups.length !== 8 || groups.some((g) => !Number.isInteger(g) || g < 0 || g > 0xffff)) return null;
  return groups.flatMap((g) => [g >> 8, g & 0xff]);
}

/** The uid owning the client end of a loopback connection, or null when the kernel's table has no such row. */
export async function peerUid(socket: Socket): Promise<number | null> {
  const { remoteAddress, remotePort, localAddress, localPort } = socket;
  if (!remoteAddress || !remotePort || !localAddress || !localPort) return null;
  const peer = procAddress(remoteAddress, remotePort);
  const self = procAddress(localAddress, localPort);
  if (!peer || !self) return null;
  // A v4 peer on a dual-stack listener appears in the v6 table in its mapped form.
  const row = await readers[peer.family === 6 || self.family === 6 ? 6 : 4].find(` ${peer.text} ${self.text} `);
  if (row === null) return null;
  // Rows read `sl local rem st tx:rx tr:when retrnsmt uid …`.
  const uid = row.trim().split(/\s+/)[7];
  return uid !== undefined && /^\d+$/.test(uid) ? Number(uid) : null;
}

/** Whether this platform can tell who is at the other end (Linux with a readable /proc/net/tcp). */
export function canTellLocalUsers(): boolean {
  if (process.platform !== 'linux' || process.getuid === undefined) return false;
  try {
    // Readable is enough to know: reading the table here cost the start-up a walk of every socket of the machine (about 5 ms).
    accessSync(TABLES[4], constants.R_OK);
    return true;
  } catch {
    return false;
  }
}
