import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, resolveConfig, type ConfigInput } from '../../../src/config/config.js';
import { MAX_TIMER_MS } from '../../../src/config/defaults.js';

/**
 * Durations that become Node timers: a delay past 2^31 - 1 ms does not wait
 * longer, it fires after 1 ms (TimeoutOverflowWarning). So a prompt deadline
 * of 25 days would fail every prompt at once, and a reap interval as long
 * would reap every millisecond. Such values are refused when the daemon starts.
 */
const base: ConfigInput = { port: 0, hostname: '127.0.0.1', home: '/nonexistent-berth-home', modelServices: [] };

const cases: Array<[flag: string, input: (ms: number) => ConfigInput]> = [
  ['--prompt-deadline-ms', (ms) => ({ promptDeadlineMs: ms })],
  ['--permission-timeout-ms', (ms) => ({ permissionTimeoutMs: ms })],
  ['--session-reap-interval-ms', (ms) => ({ sessionReapIntervalMs: ms })],
];

describe('durations that run as timers', () => {
  for (const [flag, input] of cases) {
    it(`${flag} is refused past the longest delay a timer can wait, and accepted at it`, () => {
      assert.throws(
        () => resolveConfig({ ...base, ...input(MAX_TIMER_MS + 1) }, {}),
        (err: unknown) => err instanceof ConfigError && err.message.startsWith(flag),
      );
      assert.doesNotThrow(() => resolveConfig({ ...base, ...input(MAX_TIMER_MS) }, {}));
    });
  }
});
