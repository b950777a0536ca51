// Module hooks of preload.mjs: runs on the loader's own thread.
import { appendFileSync } from 'node:fs';

let log;

export function initialize(data) {
  log = data.log;
}

export async function load(url, context, next) {
  appendFileSync(log, `load ${url}\n`);
  return next(url, context);
}
