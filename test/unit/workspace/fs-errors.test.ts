import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BerthError } from '../../../src/protocol/errors/index.js';
import { mapWorkspaceError } from '../../../src/workspace/fs-errors.js';

const sysError = (code: string): NodeJS.ErrnoException => Object.assign(new Error(`${code}: boom /abs/host/path`), { code });

describe('mapWorkspaceError', () => {
  it('maps each OS error of spec §11.1 to its status and errorKind', () => {
    const table: [string, number, string][] = [
      ['ENOENT', 404, 'path_not_found'],
      ['EACCES', 403, 'permission_denied'],
      ['EPERM', 403, 'permission_denied'],
      ['ELOOP', 400, 'symlink_escape'],
      ['EISDIR', 400, 'parse_error'],
      ['ENOTDIR', 400, 'parse_error'],
      ['ENOSPC', 503, 'io_error'],
      ['EIO', 503, 'io_error'],
      ['EBUSY', 503, 'io_error'],
      ['ETXTBSY', 503, 'io_error'],
      ['ENAMETOOLONG', 400, 'parse_error'],
      ['EMFILE', 503, 'io_error'],
      ['ENFILE', 503, 'io_error'],
      ['EINVAL', 500, 'internal_error'],
    ];
    for (const [code, status, kind] of table) {
      const mapped = mapWorkspaceError(sysError(code), 'a/b.txt') as BerthError;
      assert.ok(mapped instanceof BerthError, code);
      assert.deepEqual([mapped.status, mapped.errorKind], [status, kind], code);
      assert.ok(!mapped.message.includes('/abs/host'), 'messages name the client path, not the host path');
    }
    assert.equal((mapWorkspaceError(sysError('EIO'), 'x') as BerthError).retryable, true);
    const long = mapWorkspaceError(sysError('ENAMETOOLONG'), 'x') as BerthError;
    assert.deepEqual([long.code, long.retryable], ['name_too_long', false], 'a name too long never succeeds on retry');
  });

  it('passes BerthErrors through and hands bugs back unchanged for the face to log', () => {
    const own = new BerthError('binary_file');
    assert.equal(mapWorkspaceError(own, 'x'), own);
    const bug = new TypeError('undefined is not a function');
    assert.equal(mapWorkspaceError(bug, 'x'), bug);
  });
});
