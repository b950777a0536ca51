import { randomUUID } from 'node:crypto';
import { posix } from 'node:path';
import { sha256Hex } from '../../protocol/tools/sha256.js';
import { MAX_WRITE_CHARS } from '../limits.js';
import { BerthError } from '../../protocol/errors/index.js';
import { allowWithoutAsking } from '../permission.js';
import type { SessionToolAccess } from '../service.js';
import type { Policy, ToolOutcome } from '../types.js';
import type { FileState } from './records.js';

/** The file tools whose effects are checkpointed (contract/gateway-v1.json). */
export const FILE_EFFECT_TOOLS: ReadonlySet<string> = new Set(['workspace_write', 'workspace_patch', 'workspace_delete']);

/**
 * Runs one of the session's own calls on its workspace, with no person to ask: a checkpoint
 * read, or a rewind putting a file back (a rewind is the owner's own request).
 */
export function runOwn(access: SessionToolAccess, name: string, args: Record<string, unknown>, signal: AbortSignal, guard: Policy, callId?: string): Promise<ToolOutcome> {
  return access.run(
    { toolCallId: callId ?? `checkpoint-read-${randomUUID()}`, name, args },
    { guard, signal, permission: allowWithoutAsking, ask: nobodyHere },
  );
}

const nobodyHere = async (): Promise<string> => {
  throw new BerthError('question_unanswered', 'Nobody is asked during a checkpoint or a rewind');
};

/** The path as the tools name it: relative, without `./` or doubled separators. */
export function normalPath(path: string): string {
  return posix.normalize(path.replaceAll('\\', '/')).replace(/^\.\//, '');
}

/**
 * A file's whole content read through `workspace_read` (so a remote workspace is read
 * through its channel), window by window. Anything that cannot be restored by
 * `workspace_write` later — binary, larger than a write takes, changed while read — is
 * `unknown`; a missing file is `absent`.
 */
export async function readFileState(access: SessionToolAccess, path: string, signal: AbortSignal): Promise<{ path: string; state: FileState }> {
  const chunks: Buffer[] = [];
  let rel = normalPath(path);
  let sha256: string | undefined;
  let offset = 0;
  for (;;) {
    const outcome = await runOwn(access, 'workspace_read', { path, offset }, signal, 'read');
    if (!outcome.ok) return { path: rel, state: outcome.error.code === 'path_not_found' ? { kind: 'absent' } : { kind: 'unknown' } };
    const v = (outcome.result.value ?? {}) as Record<string, unknown>;
    if (typeof v.path === 'string') rel = v.path;
    if (sha256 !== undefined && v.sha256 !== sha256) return { path: rel, state: { kind: 'unknown' } };
    sha256 = String(v.sha256);
    chunks.push(Buffer.from(String(v.content ?? ''), 'utf8'));
    const total = chunks.reduce((n, c) => n + c.length, 0);
    if (total > MAX_WRITE_CHARS) return { path: rel, state: { kind: 'unknown' } };
    if (v.hasMore !== true || typeof v.nextOffset !== 'number') break;
    offset = v.nextOffset;
  }
  const content = Buffer.concat(chunks);
  if (sha256Hex(content) !== sha256) return { path: rel, state: { kind: 'unknown' } };
  return { path: rel, state: { kind: 'file', content } };
}

/** A file's revision now: its SHA-256, `absent`, or null when it cannot be read as a text file. */
export async function currentRevision(access: SessionToolAccess, path: string, signal: AbortSignal): Promise<string | 'absent' | null> {
  const outcome = await runOwn(access, 'workspace_read', { path, limit: 1 }, signal, 'read');
  if (outcome.ok) return String(((outcome.result.value ?? {}) as Record<string, unknown>).sha256);
  return outcome.error.code === 'path_not_found' ? 'absent' : null;
}
