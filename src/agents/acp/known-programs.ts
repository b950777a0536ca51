import { readFileSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';

/**
 * What Berth knows about particular agent programs when it starts them: the
 * settings their own daemons give the same program, so that running it under
 * Berth costs no more than running it under them. Recognised by the package
 * the program's script belongs to, whatever the agent's id or command name.
 */

/** The npm package of Qwen Code's CLI (`qwen`). */
const QWEN_PACKAGE = '@qwen-code/qwen-code';

/**
 * `qwen` starts a second copy of itself under its own first one (to pass node
 * flags and to restart after an update) unless `QWEN_CODE_NO_RELAUNCH` is set;
 * `qwen serve` sets it for the `qwen --acp` it runs. Without it each agent
 * process tree holds one more full qwen (about 170 MiB, 2 s of CPU at start
 * on qwen 0.24.4) that only waits for the other.
 */
const QWEN_ENV: Readonly<Record<string, string>> = { QWEN_CODE_NO_RELAUNCH: 'true' };

/**
 * Variables for the agent whose command is `command` (absolute) and whose
 * first argument may be its script (`node <script>`). The agent's configured
 * `env` still overrides them.
 */
export function programEnv(command: string, args: readonly string[]): Readonly<Record<string, string>> {
  const script = args[0];
  const files = script !== undefined && isAbsolute(script) ? [command, script] : [command];
  return files.some((f) => packageOf(f) === QWEN_PACKAGE) ? QWEN_ENV : {};
}

/** The name in the package.json beside the file a path resolves to (through links such as npm's bin links), or null. */
function packageOf(file: string): string | null {
  try {
    const manifest = JSON.parse(readFileSync(join(dirname(realpathSync(file)), 'package.json'), 'utf8')) as { name?: unknown };
    return typeof manifest.name === 'string' ? manifest.name : null;
  } catch {
    return null;
  }
}
