#!/usr/bin/env node
/**
 * The scripted model as a process, for spawned daemons, benchmarks and the demo:
 *   node --import tsx src/devtools/scripted-model/main.ts --port 0
 *   node dist/devtools/scripted-model/main.js --port 0
 * Prints `scripted model listening on <base url ending in /v1>` on stdout, then
 * takes its script over HTTP (`POST /__script`, `GET /__requests`, `POST /__reset`).
 */
import { parseArgs } from 'node:util';
import { startScriptedModel } from './server.js';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    host: { type: 'string', default: '127.0.0.1' },
    models: { type: 'string' },
    'default-text': { type: 'string' },
    'api-key': { type: 'string' },
    'no-record': { type: 'boolean', default: false },
  },
});

const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  process.stderr.write(`--port takes 0-65535, got ${values.port}\n`);
  process.exit(2);
}

const model = await startScriptedModel({
  port,
  host: values.host,
  models: values.models?.split(',').map((m) => m.trim()).filter(Boolean),
  defaultStep: values['default-text'] === undefined ? undefined : { kind: 'reply', text: values['default-text'] },
  apiKey: values['api-key'],
  record: !values['no-record'],
});
process.stdout.write(`scripted model listening on ${model.url}\n`);

const stop = () => void model.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
