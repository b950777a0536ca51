import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { MAX_PROMPT_MEDIA_BLOCKS } from '../../src/http/limits.js';
import { MAX_NAME_BYTES, MAX_PATH_CHARS } from '../../src/workspace/limits.js';
import { startTestDaemon, type TestDaemon } from '../support/daemon.js';
import { newSession } from '../support/session-client.js';

/**
 * Bounds on client input that had no test: the non-text blocks of one prompt
 * (spec §6.1) and the length of a workspace path. Each is probed on both sides
 * of the limit, so the test fails if the bound moves or disappears.
 */
let d: TestDaemon;
before(async () => {
  d = await startTestDaemon({ files: { 'x.txt': 'hello\n' } });
});
after(() => d.close());

const image = { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' };

test(`a prompt with more than ${MAX_PROMPT_MEDIA_BLOCKS} non-text blocks is refused whole with 400 invalid_prompt`, async () => {
  const { sessionId } = await newSession(d);
  const prompt = (images: number) => [{ type: 'text', text: 'look' }, ...Array.from({ length: images }, () => image)];
  const refused = await d.json('POST', `/session/${sessionId}/prompt`, { prompt: prompt(MAX_PROMPT_MEDIA_BLOCKS + 1) });
  assert.equal(refused.status, 400);
  assert.equal(refused.body.code, 'invalid_prompt');
  const pending = await d.json('GET', `/session/${sessionId}/pending-prompts`);
  assert.deepEqual(pending.body.pendingPrompts, [], 'nothing of the refused prompt was admitted');

  const admitted = await d.json('POST', `/session/${sessionId}/prompt`, { prompt: prompt(MAX_PROMPT_MEDIA_BLOCKS) });
  assert.equal(admitted.status, 202);
});

test(`a workspace path longer than ${MAX_PATH_CHARS} characters is refused before it is resolved`, async () => {
  // `./` segments keep the path inside the workspace however long it is.
  const padded = (length: number) => './'.repeat((length - 'x.txt'.length) / 2) + 'x.txt';
  const longest = padded(MAX_PATH_CHARS - 1);
  assert.equal(longest.length, MAX_PATH_CHARS - 1);
  const read = await d.json('GET', `/file?path=${encodeURIComponent(longest)}`);
  assert.equal(read.status, 200);
  assert.equal(read.body.content, 'hello\n');

  const tooLong = padded(MAX_PATH_CHARS + 1);
  assert.equal(tooLong.length, MAX_PATH_CHARS + 1);
  const refused = await d.json('GET', `/file?path=${encodeURIComponent(tooLong)}`);
  assert.equal(refused.status, 400);
  assert.equal(refused.body.code, 'path_outside_workspace');
});

test(`a workspace path with a name longer than ${MAX_NAME_BYTES} bytes is refused 400, not answered as a retryable I/O failure`, async () => {
  // Found by the route fuzzing (issue 16): the file system's ENAMETOOLONG became 503 io_error, a 5xx from input alone.
  for (const route of ['/file', '/stat', '/list', '/file/bytes']) {
    const refused = await d.json('GET', `${route}?path=${encodeURIComponent('['.repeat(MAX_NAME_BYTES + 1))}`);
    assert.equal(refused.status, 400, `${route}: ${JSON.stringify(refused.body)}`);
    assert.equal(refused.body.code, 'path_outside_workspace');
  }
  const longest = await d.json('GET', `/stat?path=${encodeURIComponent('a'.repeat(MAX_NAME_BYTES))}`);
  assert.equal(longest.status, 404, 'a name of the longest length is looked up');
});
