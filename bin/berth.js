#!/usr/bin/env node
// The `berth` command: the bundle `npm install` builds into dist/bundle/ (the prepare script; scripts/bundle.mjs says why one file).
import { existsSync } from 'node:fs';

const entry = new URL('../dist/bundle/main.js', import.meta.url);
if (!existsSync(entry)) {
  console.error('berth: dist/ is missing; run `npm run build` (npm install does this for you)');
  process.exit(1);
}
const { main } = await import(entry.href);
await main(process.argv);
