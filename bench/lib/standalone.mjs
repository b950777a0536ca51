// A benchmark file run on its own (`node bench/<name>.mjs [--quick]`) instead of through run.mjs:
// the same header, table and JSON result file, without the build checks run.mjs makes first.
import { pathToFileURL } from 'node:url';
import { machineNote, writeResult } from './report.mjs';

/** Whether the module at `moduleUrl` (its `import.meta.url`) is the script node was started with. */
export const isMain = (moduleUrl) => moduleUrl === pathToFileURL(process.argv[1] ?? '').href;

/** Runs `bench` ({name, description, run}) with `--quick` from the command line and writes its result. */
export async function runStandalone({ name, description, run }) {
  const quick = process.argv.includes('--quick');
  const machine = machineNote();
  console.log(`== ${name}: ${description}${quick ? ' (quick)' : ''}`);
  const startedAt = new Date();
  const result = await run({ quick });
  console.log(result.text);
  console.log(`\nwritten: ${writeResult(name, { benchmark: name, startedAt: startedAt.toISOString(), quick, machine, ...result.json }, startedAt)}`);
}
