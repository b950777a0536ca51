// Generates src/http/request-validators.gen.ts: the request-body validators of contract/openapi.json,
// compiled by Ajv here rather than in the daemon. Compiling them at run time (an Ajv, every contract
// schema added, eight compiles) cost the first `POST /session`, or the warm-up in front of it, about
// 30 ms of CPU right after the port opened. Run after changing the contract or REQUEST_BODIES:
//   node --import tsx scripts/gen-request-validators.ts
// test/unit/http/request-bodies.test.ts fails while the file is stale.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import standalone from 'ajv/dist/standalone/index.js';
import { contractAjv, REQUEST_BODIES } from '../src/http/contract-schemas.js';

export const GENERATED_FILE = fileURLToPath(new URL('../src/http/request-validators.gen.ts', import.meta.url));

/** The generated module's text: one exported validator per request body, named as in the contract. */
export function requestValidatorsSource(): string {
  const ajv = contractAjv({ code: { source: true, esm: true } });
  const code = standalone.default(ajv, Object.fromEntries(REQUEST_BODIES.map((name) => [name, name])));
  // Ajv's ES module output still requires its runtime helpers; the daemon is an ES module, so import them.
  const runtime: string[] = [...new Set(code.match(/require\("ajv\/dist\/runtime\/[a-z0-9]+"\)/g) ?? [])];
  let body = code.replace(/^"use strict";/, '');
  const imports = runtime.map((req, i) => {
    body = body.split(req).join(`ajvRuntime${i}`);
    return `import ajvRuntime${i} from '${req.slice(9, -2)}.js';`;
  });
  return [
    '/* Generated from contract/openapi.json by scripts/gen-request-validators.ts. Do not edit by hand. */',
    '// @ts-nocheck',
    ...imports,
    body,
    '',
  ].join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) writeFileSync(GENERATED_FILE, requestValidatorsSource());
