'use strict';
// Preloaded into a daemon under test (`NODE_OPTIONS="--expose-gc --require <this file>"`):
// every BERTH_MEMORY_PROBE_MS (default 10 s) it runs a full collection and appends
// one JSON line of process.memoryUsage() to BERTH_MEMORY_PROBE_FILE. From outside,
// resident memory mixes what the process keeps with what V8 has not yet collected
// and what the C allocator has not given back; the heap after a full collection is
// what the JavaScript side keeps, the number a leak of objects moves.
const { appendFileSync } = require('node:fs');
const { isMainThread } = require('node:worker_threads');
const { getHeapSpaceStatistics } = require('node:v8');

const file = process.env.BERTH_MEMORY_PROBE_FILE;
const every = Number(process.env.BERTH_MEMORY_PROBE_MS || 10_000);
// A preload runs in every worker thread too; the main thread's heap is the one sessions live in.
if (file && isMainThread && typeof globalThis.gc === 'function') {
  const started = Date.now();
  const sample = () => {
    globalThis.gc();
    const m = process.memoryUsage();
    // Each V8 space's committed size: which one holds the pages resident memory counts.
    const spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name.replace(/_space$/, ''), s.space_size]));
    const line = { t: (Date.now() - started) / 1000, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, arrayBuffers: m.arrayBuffers, rss: m.rss, spaces };
    appendFileSync(file, `${JSON.stringify(line)}\n`);
  };
  setTimeout(sample, 200).unref();
  setInterval(sample, every).unref();
}
