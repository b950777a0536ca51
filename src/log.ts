import { pino, type Logger } from 'pino';

export type { Logger };

/** Structured logs on stderr (stdout stays free for commands that print a value, like `berth token create`). */
export function createLogger(level: string): Logger {
  return pino(
    {
      level,
      base: { pid: process.pid },
      redact: { paths: ['token', '*.token', 'authorization', '*.authorization', 'apiKey', '*.apiKey'], censor: '[redacted]' },
    },
    pino.destination({ fd: 2, sync: false }),
  );
}

export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
