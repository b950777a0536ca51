// Loaded with --import into the `berth serve` scripts/bundle-main.mjs starts at build time: when the
// daemon says it listens, writes the code cache of main.body.cjs (compiled by then with the functions
// a start calls) to BERTH_BUILD_CODE_CACHE, and exits.
import { writeFileSync } from 'node:fs';

const cacheFile = process.env.BERTH_BUILD_CODE_CACHE;
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, ...rest) => {
  if (cacheFile && String(chunk).startsWith('berth listening')) {
    import(new URL('../dist/bundle/main.js', import.meta.url).href).then(({ mainBodyScript }) => {
      writeFileSync(cacheFile, mainBodyScript.createCachedData());
      process.exit(0);
    });
  }
  return write(chunk, ...rest);
};
