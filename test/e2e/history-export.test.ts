import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { EXPORT_FIXTURE, HOSTILE_PROMPT, sessionForExport } from '../support/export-session.js';
import { startStack, type Stack } from '../support/stack.js';

/**
 * GET /session/{id}/export (spec §10.2) over real HTTP: every format's
 * headers and body, the closed session it reads from storage, and the 400/404
 * answers. What a person sees of the HTML is checked in a real browser by
 * history-export-browser.test.ts.
 */
describe('session export', () => {
  let stack: Stack;
  let sessionId: string;

  before(async () => {
    stack = await startStack({ files: EXPORT_FIXTURE });
    ({ sessionId } = await sessionForExport(stack));
  });
  after(async () => {
    await stack?.close();
  });

  const get = (q: string, id = sessionId) => stack.daemon.fetch(`/session/${id}/export${q}`);

  test('each format is an attachment with its content type, a quoted safe file name and no caching', async () => {
    for (const [format, type] of [
      ['html', 'text/html; charset=utf-8'],
      ['md', 'text/markdown; charset=utf-8'],
      ['json', 'application/json; charset=utf-8'],
      ['jsonl', 'application/jsonl; charset=utf-8'],
    ]) {
      const res = await get(`?format=${format}`);
      assert.equal(res.status, 200, format);
      assert.equal(res.headers.get('content-type'), type);
      assert.match(res.headers.get('content-disposition')!, new RegExp(`^attachment; filename="berth-export-[A-Za-z0-9._-]+\\.${format}"$`));
      assert.equal(res.headers.get('cache-control'), 'no-store');
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      assert.ok((await res.text()).length > 0);
    }
  });

  test('without a format the export is html; an unknown format is 400 invalid_export_format with the allowed list', async () => {
    const res = await get('');
    assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.match(await res.text(), /^<!doctype html>/);
    const bad = await get('?format=pdf');
    assert.equal(bad.status, 400);
    const body = (await bad.json()) as Record<string, unknown>;
    assert.equal(body.code, 'invalid_export_format');
    assert.equal(body.format, 'pdf');
    assert.deepEqual(body.allowedFormats, ['html', 'md', 'json', 'jsonl']);
  });

  test('the html is one self-contained page: a strict CSP, no script, no external reference, the transcript escaped', async () => {
    const res = await get('?format=html');
    const html = await res.text();
    assert.match(res.headers.get('content-security-policy')!, /^default-src 'none'; style-src 'sha256-/);
    assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; img-src data:; base-uri 'none'; form-action 'none'">/);
    assert.doesNotMatch(html, /<script/i);
    assert.doesNotMatch(html, /\b(src|href)=["']?(https?:)?\/\//i);
    assert.doesNotMatch(html, /<link\b/i);
    assert.ok(html.includes('Fix &lt;script&gt;window.__pwned = 1&lt;/script&gt; and &lt;/pre&gt;&lt;img src=x onerror=&quot;window.__pwned=2&quot;&gt; please'));
    assert.ok(!html.includes(HOSTILE_PROMPT));
    assert.ok(html.includes('<details class="thought"><summary>Thinking</summary>'));
    assert.ok(html.includes('hello &lt;b&gt;world&lt;/b&gt;'));
  });

  test('the markdown shows the prompts, answers, tool calls with input and output, permission decisions and the error', async () => {
    const md = await (await get('?format=md')).text();
    assert.match(md, /^# Chat Session Export\n/);
    assert.ok(md.includes(`- **Session ID**: \`${sessionId}\``));
    assert.ok(md.includes('- **Prompt Count**: 2'));
    assert.ok(md.includes('## User\n\nTry once more'));
    assert.ok(md.includes('## Assistant\n\nWrote greeting.txt; the owner kept README.md.'));
    assert.ok(md.includes('### Tool: workspace\\_write'));
    assert.ok(md.includes('"path": "greeting.txt"'));
    assert.ok(md.includes('**Status**: completed'));
    assert.ok(md.includes('**Status**: failed'));
    assert.match(md, /### Permission: Write greeting\.txt\n\n\*\*Decision\*\*: Allowed once/);
    assert.match(md, /### Permission: Delete README\.md\n\n\*\*Decision\*\*: Rejected once/);
    assert.match(md, /> \*\*Error\*\* \(model_error\): .*fell over/);
  });

  test('the json is the whole conversation as messages with session metadata; jsonl is the same, one message per line', async () => {
    const json = (await (await get('?format=json')).json()) as any;
    assert.equal(json.sessionId, sessionId);
    assert.equal(json.metadata.promptCount, 2);
    assert.ok(json.metadata.totalTokens > 0);
    const types = json.messages.map((m: any) => m.type);
    for (const t of ['user', 'assistant', 'tool_call', 'permission', 'turn_end']) assert.ok(types.includes(t), t);
    const write = json.messages.find((m: any) => m.type === 'tool_call' && m.toolCall.name === 'workspace_write');
    assert.equal(write.toolCall.status, 'completed');
    assert.deepEqual(write.toolCall.rawInput, { path: 'greeting.txt', content: 'hello <b>world</b>\n', expectedSha256: null });
    const decisions = json.messages.filter((m: any) => m.type === 'permission').map((m: any) => m.permission.decision.optionKind);
    assert.deepEqual(decisions, ['allow_once', 'reject_once']);
    assert.equal(json.messages.find((m: any) => m.type === 'user').message.parts[0].text, HOSTILE_PROMPT);

    const lines = (await (await get('?format=jsonl')).text()).trimEnd().split('\n').map((l) => JSON.parse(l));
    assert.equal(lines[0].type, 'session_metadata');
    assert.equal(lines[0].sessionId, sessionId);
    assert.deepEqual(lines.slice(1), json.messages);
  });

  test('an unknown or malformed session is 404; export reads storage, so the closed session exports', async () => {
    for (const id of [randomUUID(), 'nope']) {
      const res = await get('?format=md', id);
      assert.equal(res.status, 404);
      assert.equal(((await res.json()) as { code: string }).code, 'session_not_found');
    }
    const status = await stack.daemon.json('GET', `/session/${sessionId}/status`);
    assert.equal(status.status, 404, 'the session is closed, yet it exported above');
  });
});
