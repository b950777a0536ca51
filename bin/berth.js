#!/usr/bin/env node
// The `berth` command. The TypeScript sources are compiled to dist/ by `npm install` (the prepare script).
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  console.error('berth: dist/ is missing; run `npm run build` (npm install does this for you)');
  process.exit(1);
}
const { main } = await import(entry.href);
await main(process.argv);
