import { request } from 'node:http';

/** A GET with full control of headers (fetch forbids setting Host), for security tests. */
export function rawGet(baseUrl: string, path: string, headers: Record<string, string>): Promise<RawAnswer> {
  return rawRequest('GET', baseUrl, path, headers);
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request of any method with full control of headers; the body is read whatever the method. */
export function rawRequest(method: string, baseUrl: string, path: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  const u = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: u.hostname, port: u.port, path, method, headers, setHost: !('host' in headers) },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}
