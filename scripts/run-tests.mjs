#!/usr/bin/env node
// Runs every test/**/*.test.ts through Node's built-in runner with tsx.
// Node 20's `--test` cannot glob TypeScript files itself, so we list them here.
// Usage: node scripts/run-tests.mjs [substring filter ...]
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawn } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const filters = process.argv.slice(2);

/** Installs the tests make on demand (test/.cache) carry their own packages' tests: never ours to run. */
const SKIPPED_DIRS = new Set(['.cache', 'node_modules']);

function walk(dir, out) {
  for (const name of readdirSync(dir)) {
    if (SKIPPED_DIRS.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (name.endsWith('.test.ts')) out.push(relative(root, path));
  }
  return out;
}

const files = walk(join(root, 'test'), [])
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
const concurrency = process.env.BERTH_TEST_CONCURRENCY ?? '2';
const args = ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...files];
const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit' });
child.on('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 1)));
