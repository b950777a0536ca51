import type { ErrorCode } from '../protocol/errors/index.js';
import type { Answer } from './types.js';

/** A question answered; `text` says what was done (docs/modules.md `Answer`). */
export function done(text: string, extra: Omit<Answer, 'ok' | 'text' | 'code'> = {}): Answer {
  return { ok: true, text, ...extra };
}

/** A question refused; `text` says why in words an agent is shown, `code` is the catalogue's. */
export function refused(code: ErrorCode, text: string): Answer {
  return { ok: false, text, code };
}

/**
 * The answer as the line written back: JSON on one line ending in a newline.
 * JSON never needs a raw line break, so text with line breaks stays one line.
 */
export function answerLine(answer: Answer): string {
  return JSON.stringify(answer) + '\n';
}
