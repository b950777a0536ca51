// The benchmark's application (issue 7): `berth/app` from the measured checkout's dist/, publishing
// one trivial read tool (`bench.echo`, returns its text) and one write tool (`bench.count`), in its
// own process so its work is not on the daemon's thread. Prints `app ready` once connected.
//   node bench/lib/toolproto-app.mjs <berth dir> <daemon url> <token file>
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [berthDir, url, tokenFile] = process.argv.slice(2);
const { connect } = await import(pathToFileURL(join(berthDir, 'dist', 'app', 'index.js')).href);
const text = { type: 'object', properties: { text: { type: 'string', maxLength: 100 } }, required: ['text'], additionalProperties: false };
let count = 0;
const app = await connect(url, readFileSync(tokenFile, 'utf8').trim(), {
  tools: [
    { id: 'bench.echo', description: 'Returns its text', category: 'bench', policy: 'read', inputSchema: text, handler: ({ text }) => ({ text }) },
    { id: 'bench.count', description: 'Counts calls', category: 'bench', policy: 'write', inputSchema: text, handler: () => ({ count: ++count }) },
  ],
});
process.stdout.write('app ready\n');
process.once('SIGTERM', () => void app.close());
await app.closed;
