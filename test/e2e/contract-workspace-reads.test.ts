import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { OPENAPI, validatorFor } from '../../src/http/contract.js';
import { startTestDaemon, type TestDaemon } from '../support/daemon.js';
import { removeDir, tempDir, writeTree } from '../support/tmp.js';
import { makeLinks, makeOutside, readsFiles, startUnprivilegedDaemon, unprivilegedSkip } from './workspace-reads.fixture.js';

/**
 * Contract test (style.md §4): every answer of the workspace read routes —
 * successes and refusals — validates against the seed OpenAPI, and every
 * status an operation documents is produced by a real request. 500 and
 * `default` are left out: no real file system call made here fails in a way
 * the mapping does not name (src/workspace/fs-errors.ts is unit-tested).
 */

const q = encodeURIComponent;
const LONG = 'n'.repeat(300);

/** Per route: its success schema and requests meant to produce each status. */
const CASES: Record<string, { schema: string; requests: Record<number, string[]> }> = {
  '/file': {
    schema: 'WorkspaceFile',
    requests: {
      200: ['path=README.md', 'path=big.txt&line=10&limit=3', 'path=large.txt&limit=10', 'path=empty.txt', 'path=bom16le.txt&limit=1', 'path=debug.log'],
      400: ['', 'path=src', 'path=..%2Fx', 'path=link-out-file', 'path=big.txt&limit=0', 'path=big.txt&cursor=bad!', `path=${LONG}`],
      404: ['path=missing.txt'],
      409: ['CURSOR_OF_OTHER_FILE'],
      413: ['path=large.txt'],
      422: ['path=blob.bin', 'path=large-utf16.txt&limit=1'],
    },
  },
  '/file/bytes': {
    schema: 'WorkspaceFileBytes',
    requests: {
      200: ['path=blob.bin', 'path=blob.bin&offset=8&maxBytes=8', 'path=blob.bin&offset=999'],
      400: ['', 'path=src', 'path=blob.bin&maxBytes=0', 'path=dangling', `path=${LONG}`],
      404: ['path=missing.bin'],
    },
  },
  '/stat': {
    schema: 'WorkspaceStat',
    requests: {
      200: ['path=README.md', 'path=.', 'path=dir-in'],
      400: ['', 'path=%2Fetc%2Fpasswd', 'path=loop-a', `path=${LONG}`],
      404: ['path=missing'],
    },
  },
  '/list': {
    schema: 'WorkspaceList',
    requests: {
      200: ['path=.', 'path=.&includeIgnored=1', 'path=build'],
      400: ['', 'path=README.md', 'path=link-out-dir', `path=${LONG}`],
      404: ['path=missing'],
    },
  },
  '/glob': {
    schema: 'WorkspaceGlob',
    requests: {
      200: [`pattern=${q('**/*')}`, `pattern=${q('**/*')}&maxResults=1`, 'pattern=*&cwd=src&includeIgnored=true'],
      400: ['', `pattern=${q('../*')}`, 'pattern=*&maxResults=0', 'pattern=*&cwd=..%2F', `pattern=*&cwd=${LONG}`],
      404: ['pattern=*&cwd=missing'],
    },
  },
};

/** The unprivileged daemon's requests for 403. */
const DENIED: Record<string, string> = {
  '/file': 'path=locked.txt',
  '/file/bytes': 'path=locked.txt',
  '/stat': 'path=locked-dir%2Fx',
  '/list': 'path=locked-dir',
  '/glob': 'pattern=*&cwd=locked-dir',
};

function responsesOf(route: string): Record<string, unknown> {
  return (OPENAPI.paths[route]!.get as unknown as { responses: Record<string, unknown> }).responses;
}

function check(route: string, query: string, status: number, body: unknown, expected: number): void {
  const where = `${route}?${query} → ${status} ${JSON.stringify(body).slice(0, 300)}`;
  assert.equal(status, expected, where);
  assert.ok(String(status) in responsesOf(route), `status ${status} is documented for ${route}`);
  if (status === 200) {
    const validate = validatorFor(CASES[route]!.schema);
    assert.ok(validate(body), `${where}\n${JSON.stringify(validate.errors)}`);
  } else {
    const validate = validatorFor('Error');
    assert.ok(validate(body), `${where}\n${JSON.stringify(validate.errors)}`);
    const b = body as { error?: unknown; errorKind?: unknown; code?: unknown; status?: unknown };
    assert.equal(typeof b.error, 'string', where);
    assert.equal(typeof b.errorKind, 'string', `${where}: errorKind names the failure (spec §11.1)`);
    assert.equal(typeof b.code, 'string', where);
    assert.equal(b.status, status, where);
  }
}

describe('the workspace read routes keep the OpenAPI contract', () => {
  let d: TestDaemon;
  let outside: string;
  let cursorOfOther: string;
  before(async () => {
    outside = makeOutside();
    d = await startTestDaemon({ files: readsFiles() });
    makeLinks(d.workspace, outside);
    cursorOfOther = (await d.json('GET', '/file?path=big.txt&limit=1')).body.nextCursor;
  });
  after(async () => {
    await d.close();
    removeDir(outside);
  });

  for (const [route, { requests }] of Object.entries(CASES)) {
    it(`every ${route} answer validates and its status is documented`, async () => {
      for (const [status, queries] of Object.entries(requests)) {
        for (const raw of queries) {
          const query = raw === 'CURSOR_OF_OTHER_FILE' ? `path=README.md&cursor=${cursorOfOther}` : raw;
          const r = await d.json('GET', `${route}?${query}`);
          check(route, query, r.status, r.body, Number(status));
        }
      }
    });
  }

  it('each operation has every documented status exercised, 403 and the unreachable 500 and 503 aside', () => {
    // 503 io_error needs a failing disk (EIO, ENOSPC, EMFILE): no request alone produces it, and
    // test/unit/workspace/fs-errors.test.ts holds its mapping. A name over 255 bytes is a 400 name_too_long.
    for (const [route, { requests }] of Object.entries(CASES)) {
      const covered = new Set([...Object.keys(requests), '403', '500', '503', 'default']);
      for (const status of Object.keys(responsesOf(route))) assert.ok(covered.has(status), `${route} ${status}`);
    }
  });

  it('the capability tags each operation names are advertised', async () => {
    const caps = await d.json('GET', '/capabilities');
    for (const route of Object.keys(CASES)) {
      const tag = OPENAPI.paths[route]!.get!['x-qwen-capability'];
      if (tag) assert.ok(caps.body.features.includes(tag), `${route} needs ${tag}`);
    }
    assert.ok(caps.body.features.includes('workspace_file_read_cursor'));
  });
});

describe('the workspace read routes answer 403 within the contract', { skip: unprivilegedSkip }, () => {
  let workspace: string;
  let daemon: { url: string; stop(): Promise<void> };
  before(async () => {
    workspace = tempDir('berth-ws-contract-');
    writeTree(workspace, { 'locked.txt': 'no\n', 'locked-dir/x': 'no\n' });
    writeFileSync(join(workspace, 'open.txt'), 'ok\n');
    daemon = await startUnprivilegedDaemon(workspace, ['locked.txt', 'locked-dir']);
  });
  after(async () => {
    await daemon.stop();
    removeDir(workspace);
  });

  it('every route refuses an unreadable path with a documented 403 Error body', async () => {
    for (const [route, query] of Object.entries(DENIED)) {
      const res = await fetch(`${daemon.url}${route}?${query}`);
      check(route, query, res.status, await res.json(), 403);
    }
  });
});
