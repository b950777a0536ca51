import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { BerthError } from '../protocol/errors/index.js';
import { errorBody } from '../net/errors.js';

/**
 * What the server answers when Node's parser refuses a request before any
 * route runs (headers too large, a request line that is not HTTP, a request
 * timeout): the contract's Error body, and `Connection: close`, because the
 * connection is closed after it. fastify's own handler answered without that
 * header, so a keep-alive client put the connection back in its pool and its
 * next request met a hang-up (issue 16, HTTP route fuzzing).
 */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const refusal =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? new BerthError('request_headers_too_large')
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new BerthError('request_timeout')
        : new BerthError('invalid_request', 'The request is not valid HTTP/1.1');
  const body = JSON.stringify(errorBody(refusal));
  const head = [
    `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status] ?? 'Error'}`,
    'Connection: close',
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
  ].join('\r\n');
  if (socket.writable) socket.end(`${head}\r\n\r\n${body}`);
  else socket.destroy();
}
