#!/usr/bin/env node
// Generates src/http/openapi.gen.ts: one TypeScript type per schema in contract/openapi.json.
// The OpenAPI file is the single source; run `node scripts/gen-contract-types.mjs` after changing it.
import { readFileSync, writeFileSync } from 'node:fs';
import { compile } from 'json-schema-to-typescript';

const root = new URL('..', import.meta.url);
const doc = JSON.parse(readFileSync(new URL('contract/openapi.json', root), 'utf8'));
const schemas = doc.components.schemas;

// Rewrite OpenAPI refs to JSON-Schema definitions so the compiler resolves them in one document.
const rewrite = (node) => {
  if (Array.isArray(node)) return node.map(rewrite);
  if (node && typeof node === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out[k] = v.replace('#/components/schemas/', '#/definitions/');
      else if (!k.startsWith('x-')) out[k] = rewrite(v);
    }
    return out;
  }
  return node;
};

const definitions = rewrite(schemas);
const names = Object.keys(definitions);
const wrapper = {
  title: 'OpenApiContract',
  type: 'object',
  properties: Object.fromEntries(names.map((n) => [n, { $ref: `#/definitions/${n}` }])),
  additionalProperties: false,
  definitions: Object.fromEntries(names.map((n) => [n, { ...definitions[n], title: n }])),
};

const ts = await compile(wrapper, 'OpenApiContract', {
  bannerComment:
    '/* Generated from contract/openapi.json by scripts/gen-contract-types.mjs. Do not edit by hand. */',
  additionalProperties: false,
  unreachableDefinitions: true,
  style: { singleQuote: true },
});
writeFileSync(new URL('src/http/openapi.gen.ts', root), ts);
console.log(`wrote ${names.length} types`);
