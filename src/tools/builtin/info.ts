import { open, readFile, stat } from 'node:fs/promises';
import { arch, platform, release } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { MAX_INSTRUCTIONS_BYTES } from '../limits.js';
import { BerthError } from '../../protocol/errors/index.js';
import type { LocalWorkspace } from '../../workspace/types.js';
import { confine } from '../../workspace/paths.js';
import type { Tool, ToolContext, ToolResult } from '../types.js';
import { EXEC_SHELL } from './commands/spawn-group.js';
import { seedToolDefinition } from './seed-tools.js';
import { isUtf8Continuation, utf8Decode } from './utf8.js';
import { localWorkspaceOf } from './workspace-files.js';

/** Files at the root whose text tells an agent how to work on the project, in the order quoted. */
export const INSTRUCTION_FILES = ['AGENTS.md', 'CLAUDE.md', 'QWEN.md'] as const;

/** `.git/HEAD` is one short line; anything longer is not a HEAD we understand. */
const MAX_GIT_HEAD_BYTES = 1024;

/**
 * `workspace_info` (docs/gateway.md): project identity, platform and instructions.
 * The project is named by its root's basename, never its absolute path (seed
 * 000: "Do not use the agent's project label as a local path").
 */
export function workspaceInfoTool(): Tool {
  return {
    ...seedToolDefinition('workspace_info', { policy: 'read', category: 'workspace' }),
    run: (_args, ctx) => describeWorkspace(ctx),
  };
}

async function describeWorkspace(ctx: ToolContext): Promise<ToolResult> {
  const ws = localWorkspaceOf(ctx);
  const [git, instructions] = await Promise.all([gitState(ws.root), readInstructions(ws)]);
  return {
    value: {
      project: { workspaceId: ws.id, name: ws.displayName, git },
      platform: { os: platform(), osRelease: release(), arch: arch(), shell: EXEC_SHELL, node: process.version },
      instructions,
      instructionFiles: instructions.map((i) => i.file),
    },
  };
}

interface Instruction {
  readonly file: string;
  readonly content: string;
  readonly size: number;
  readonly truncated: boolean;
}

/**
 * Quotes each instruction file found at the root, up to MAX_INSTRUCTIONS_BYTES
 * (cut on a character boundary, reported `truncated`). A file that is a link
 * out of the workspace, not a file, or not UTF-8 is skipped, not followed.
 */
async function readInstructions(ws: LocalWorkspace): Promise<Instruction[]> {
  const found: Instruction[] = [];
  for (const file of INSTRUCTION_FILES) {
    const quoted = await quoteFile(ws.root, file).catch(() => null);
    if (quoted) found.push(quoted);
  }
  return found;
}

async function quoteFile(root: string, file: string): Promise<Instruction | null> {
  let abs: string;
  try {
    abs = (await confine(root, file)).abs;
  } catch (err) {
    if (err instanceof BerthError) return null;
    throw err;
  }
  const handle = await open(abs, 'r');
  try {
    const st = await handle.stat();
    if (!st.isFile()) return null;
    // One byte past the limit tells whether the cut falls inside a character.
    const buf = Buffer.alloc(Math.min(st.size, MAX_INSTRUCTIONS_BYTES + 1));
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    const truncated = bytesRead > MAX_INSTRUCTIONS_BYTES;
    let end = Math.min(bytesRead, MAX_INSTRUCTIONS_BYTES);
    if (truncated) while (end > 0 && isUtf8Continuation(buf[end])) end--;
    const content = utf8Decode(buf.subarray(0, end));
    return content === null ? null : { file, content, size: st.size, truncated };
  } finally {
    await handle.close();
  }
}

/** Whether the root is a git work tree and its branch, from `.git/HEAD` alone (cheap: no git process). */
async function gitState(root: string): Promise<{ repository: boolean; branch: string | null; detachedHead?: string }> {
  const dotGit = join(root, '.git');
  const st = await stat(dotGit).catch(() => null);
  if (!st) return { repository: false, branch: null };
  let gitDir = dotGit;
  if (st.isFile()) {
    // A linked worktree or submodule: `.git` is a file saying `gitdir: <path>`.
    const pointer = (await readFile(dotGit, 'utf8').catch(() => '')).trim();
    const target = pointer.startsWith('gitdir:') ? pointer.slice('gitdir:'.length).trim() : '';
    if (!target) return { repository: true, branch: null };
    gitDir = isAbsolute(target) ? target : resolve(root, target);
  }
  const head = await readHead(join(gitDir, 'HEAD'));
  if (head === null) return { repository: true, branch: null };
  const ref = /^ref: refs\/heads\/(.+)$/.exec(head);
  if (ref) return { repository: true, branch: ref[1] };
  return /^[0-9a-f]{40,64}$/.test(head) ? { repository: true, branch: null, detachedHead: head } : { repository: true, branch: null };
}

async function readHead(path: string): Promise<string | null> {
  const handle = await open(path, 'r').catch(() => null);
  if (!handle) return null;
  try {
    const buf = Buffer.alloc(MAX_GIT_HEAD_BYTES);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    return buf.subarray(0, bytesRead).toString('utf8').trim();
  } finally {
    await handle.close();
  }
}
