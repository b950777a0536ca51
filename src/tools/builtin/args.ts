import { BerthError } from '../../protocol/errors/index.js';

/**
 * Argument readers for tools. The executor validates arguments against the
 * seed schema before `run`, but a tool must still be safe when called alone,
 * so each reader refuses a wrong shape whole with `invalid_arguments`.
 */
export function requiredString(args: Record<string, unknown>, key: string): string {
  const v = args[key];
  if (typeof v !== 'string') throw invalid(`\`${key}\` must be a string`);
  return v;
}

export function optionalString(args: Record<string, unknown>, key: string): string | undefined {
  const v = args[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw invalid(`\`${key}\` must be a string`);
  return v;
}

export function optionalInteger(args: Record<string, unknown>, key: string, min: number, max: number): number | undefined {
  const v = args[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw invalid(`\`${key}\` must be an integer from ${min} to ${max}`);
  }
  return v;
}

const SHA256_HEX = /^[a-f0-9]{64}$/;

/** `expectedSha256`: 64 lowercase hex digits, or null (docs/gateway.md write/patch/delete). */
export function expectedSha256(args: Record<string, unknown>): string | null {
  const v = args.expectedSha256;
  if (v === null) return null;
  if (typeof v !== 'string' || !SHA256_HEX.test(v)) {
    throw invalid('`expectedSha256` must be 64 lowercase hex digits or null');
  }
  return v;
}

/** docs/gateway.md `commandId`: a UUID in lowercase hex. */
const COMMAND_ID = /^[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}$/;

export function commandIdArg(args: Record<string, unknown>): string {
  const v = requiredString(args, 'commandId');
  if (!COMMAND_ID.test(v)) throw invalid('`commandId` must be a command id returned by workspace_exec');
  return v;
}

export function invalid(message: string, hint?: string): BerthError {
  return new BerthError('invalid_arguments', message, {}, hint);
}
