import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MAX_FILE_LINES, MAX_FILE_WINDOW_BYTES, MAX_GLOB_RESULTS } from '../../workspace/limits.js';
import type { Core } from '../../core.js';
import { BerthError } from '../../protocol/errors/index.js';
import { readFileBytes } from '../../workspace/bytes-read.js';
import { mapWorkspaceError } from '../../workspace/fs-errors.js';
import { globWorkspace } from '../../workspace/glob.js';
import { listDirectory } from '../../workspace/list.js';
import { statPath } from '../../workspace/stat.js';
import { readTextFile } from '../../workspace/text-read.js';
import { clientIdOf } from '../client-id.js';
import type { HttpModule } from '../module.js';

/**
 * The "Workspace reads" tag of the client API except `/workspace/tools`
 * (OpenAPI `readWorkspaceFile`, `readWorkspaceFileBytes`, `statWorkspacePath`,
 * `listWorkspaceDirectory`, `globWorkspace`; docs/client-api.md §11). Parse the query,
 * call src/workspace, encode; every refusal is a catalogue error with an
 * `errorKind` (docs/client-api.md §11.1).
 */

type Query = Record<string, string | string[] | undefined>;

const bad = (message: string): BerthError => new BerthError('parse_error', message);

/** One value of a query parameter; repeating it is ambiguous and refused. */
function single(query: Query, name: string): string | undefined {
  const v = query[name];
  if (Array.isArray(v)) throw bad(`\`${name}\` may be given only once`);
  return v;
}

function required(query: Query, name: string): string {
  const v = single(query, name);
  if (v === undefined || v === '') throw bad(`${name} query parameter is required`);
  return v;
}

/** docs/client-api.md §11.2: integers are plain decimal digits; anything else, or out of range, is `parse_error`. */
function integer(query: Query, name: string, min: number, max: number, rule: string): number | undefined {
  const v = single(query, name);
  if (v === undefined) return undefined;
  const n = /^[0-9]{1,16}$/.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) throw bad(`\`${name}\` must be ${rule}`);
  return n;
}

/** docs/client-api.md §11.1: `includeIgnored` is on for `1` or `true`; any other value is off. */
function flag(query: Query, name: string): boolean {
  const v = single(query, name);
  return v === '1' || v === 'true';
}

const MAX_OFFSET = Number.MAX_SAFE_INTEGER;

/** Runs a read: the optional client id is format-checked first; OS errors become catalogue errors. */
async function serve<T>(request: FastifyRequest, reply: FastifyReply, path: () => string, run: () => Promise<T>): Promise<T> {
  // Errors keep this header too: a refusal is no more cacheable than an answer.
  reply.header('Cache-Control', 'no-store');
  clientIdOf(request);
  try {
    return await run();
  } catch (err) {
    let rel = '';
    try {
      rel = path();
    } catch {
      /* the parameter itself was the problem */
    }
    throw mapWorkspaceError(err, rel);
  }
}

/**
 * `GET /glob` on one workspace root.
 */
async function globIn(root: string, request: FastifyRequest, reply: FastifyReply, core: Core) {
  const q = request.query as Query;
  const abort = new AbortController();
  // The walk stops if the client goes away before the answer is written.
  reply.raw.once('close', () => abort.abort());
  return serve(request, reply, () => single(q, 'cwd') ?? '', () => {
    const cwd = single(q, 'cwd');
    if (cwd === '') throw bad('`cwd` must not be empty');
    const options = {
      pattern: required(q, 'pattern'),
      cwd,
      maxResults: integer(q, 'maxResults', 1, MAX_GLOB_RESULTS, `a positive integer in [1, ${MAX_GLOB_RESULTS}]`),
      includeIgnored: flag(q, 'includeIgnored'),
      signal: abort.signal,
    };
    return globWorkspace(root, options, core.clock);
  });
}

/**
 * The read routes under `prefix`, on the root `rootOf` names: `''` and the primary workspace for
 * the client API, `/workspaces/:cwd` and the named workspace for the Web Shell.
 */
export function registerWorkspaceReads(app: FastifyInstance, core: Core, prefix: string, rootOf: (request: FastifyRequest) => string): void {
  app.get(`${prefix}/file`, async (request, reply) => {
    const q = request.query as Query;
    return serve(request, reply, () => required(q, 'path'), () => {
      const path = required(q, 'path');
      const options = {
        maxBytes: integer(q, 'maxBytes', 1, MAX_FILE_WINDOW_BYTES, `a positive integer in [1, ${MAX_FILE_WINDOW_BYTES}]`),
        line: integer(q, 'line', 1, MAX_OFFSET, 'a positive integer'),
        limit: integer(q, 'limit', 1, MAX_FILE_LINES, `a positive integer in [1, ${MAX_FILE_LINES}]`),
        cursor: single(q, 'cursor'),
      };
      return readTextFile(rootOf(request), path, options);
    });
  });

  app.get(`${prefix}/file/bytes`, async (request, reply) => {
    const q = request.query as Query;
    return serve(request, reply, () => required(q, 'path'), () => {
      const path = required(q, 'path');
      const options = {
        offset: integer(q, 'offset', 0, MAX_OFFSET, 'a non-negative integer'),
        maxBytes: integer(q, 'maxBytes', 1, MAX_FILE_WINDOW_BYTES, `a positive integer in [1, ${MAX_FILE_WINDOW_BYTES}]`),
      };
      return readFileBytes(rootOf(request), path, options);
    });
  });

  app.get(`${prefix}/stat`, async (request, reply) => {
    const q = request.query as Query;
    return serve(request, reply, () => required(q, 'path'), () => statPath(rootOf(request), required(q, 'path')));
  });

  app.get(`${prefix}/list`, async (request, reply) => {
    const q = request.query as Query;
    return serve(request, reply, () => required(q, 'path'), () =>
      listDirectory(rootOf(request), required(q, 'path'), { includeIgnored: flag(q, 'includeIgnored') }),
    );
  });

  app.get(`${prefix}/glob`, async (request, reply) => globIn(rootOf(request), request, reply, core));
}

export const workspaceReadsModule: HttpModule = {
  name: 'workspace-reads',
  features: () => ['workspace_file_read', 'workspace_file_bytes', 'workspace_file_read_cursor'],
  register(app, core: Core) {
    registerWorkspaceReads(app, core, '', () => core.workspaces.primary().root);
  },
};
