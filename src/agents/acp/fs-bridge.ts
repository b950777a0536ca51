import * as acp from '@agentclientprotocol/sdk';
import { isAbsolute, resolve } from 'node:path';
import { isInside, toRel } from '../../workspace/paths.js';
import type { CallOptions } from '../driver.js';
import type { ToolOutcome } from '../../tools/types.js';
import { MAX_AGENT_READ_BYTES } from './limits.js';

/** Runs one tool call of the session for an agent request (the driver names the call). */
export type ToolRunner = (name: string, args: Record<string, unknown>, options: CallOptions) => Promise<ToolOutcome>;

/**
 * An agent's `fs/read_text_file` and `fs/write_text_file` (issue 12) served by
 * the session's workspace tools, so the guard, the approval mode, receipts and
 * the journal apply exactly as to the built-in agent's own calls. ACP paths are
 * absolute; one outside the workspace root is refused before any tool runs
 * (the tools then confine symlinks and ignore rules themselves).
 */
export class FsBridge {
  constructor(private readonly root: string) {}

  /** The workspace-relative path of an ACP path, or an `invalid params` answer. */
  relative(path: string): string {
    if (!isAbsolute(path)) throw acp.RequestError.invalidParams({ path }, 'ACP paths are absolute');
    const abs = resolve(path);
    if (!isInside(this.root, abs)) throw acp.RequestError.invalidParams({ path }, 'the path is outside the workspace');
    return toRel(this.root, abs);
  }

  async read(run: ToolRunner, params: acp.ReadTextFileRequest): Promise<acp.ReadTextFileResponse> {
    const path = this.relative(params.path);
    let content = '';
    let offset = 0;
    for (;;) {
      const value = resultOf(await run('workspace_read', { path, offset }, { announce: false }));
      content += String(value.content ?? '');
      if (!value.hasMore || typeof value.nextOffset !== 'number') break;
      if (value.nextOffset > MAX_AGENT_READ_BYTES) {
        throw acp.RequestError.invalidParams({ path: params.path }, `the file is larger than ${MAX_AGENT_READ_BYTES} bytes`);
      }
      offset = value.nextOffset;
    }
    return { content: lineWindow(content, params.line ?? null, params.limit ?? null) };
  }

  /** Replaces the file whole (creating it when missing), against the revision read just before. */
  async write(run: ToolRunner, params: acp.WriteTextFileRequest, approved: boolean): Promise<acp.WriteTextFileResponse> {
    const path = this.relative(params.path);
    const current = await run('workspace_read', { path, limit: 1 }, { announce: false });
    let expectedSha256: string | null = null;
    if (current.ok) expectedSha256 = String((current.result.value as Record<string, unknown>).sha256);
    else if (current.error.code !== 'path_not_found') resultOf(current);
    resultOf(await run('workspace_write', { path, content: params.content, expectedSha256 }, { announce: false, approved }));
    return {};
  }
}

/** The tool's value, or the agent's error answer naming Berth's code. */
export function resultOf(outcome: ToolOutcome): Record<string, unknown> {
  if (outcome.ok) return (outcome.result.value ?? {}) as Record<string, unknown>;
  const data = { code: outcome.error.code, ...(outcome.error.details ?? {}) };
  if (outcome.error.code === 'path_not_found') throw new acp.RequestError(-32002, outcome.error.message, data);
  if (outcome.error.code === 'path_outside_workspace' || outcome.error.code === 'symlink_escape') {
    throw acp.RequestError.invalidParams(data, outcome.error.message);
  }
  throw acp.RequestError.internalError(data, outcome.error.message);
}

/** ACP's 1-based `line` and `limit` (in lines) applied to a whole file. */
function lineWindow(content: string, line: number | null, limit: number | null): string {
  if (line === null && limit === null) return content;
  const lines = content.split('\n');
  const start = Math.max(0, (line ?? 1) - 1);
  return lines.slice(start, limit === null ? undefined : start + limit).join('\n');
}

