import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkMcpServers } from '../../../src/config/mcp-servers.js';
import { convertCatalog, policyOf, resultOf } from '../../../src/mcp/tools.js';

const [spec] = checkMcpServers({ s: { command: 'srv', toolPolicies: { risky: 'critical' } } }, 'test', 'home');
const noCall = async () => ({ value: null });
const schema = { type: 'object', properties: {} };

describe('MCP catalogs as Berth tools', () => {
  it('maps annotations to policies, and config overrides them per tool or per server', () => {
    assert.equal(policyOf(spec!, 'a', { readOnlyHint: true }), 'read');
    assert.equal(policyOf(spec!, 'a', { destructiveHint: true }), 'critical');
    assert.equal(policyOf(spec!, 'a', { readOnlyHint: true, destructiveHint: true }), 'critical', 'destructive wins');
    assert.equal(policyOf(spec!, 'a', null), 'write');
    assert.equal(policyOf(spec!, 'risky', { readOnlyHint: true }), 'critical', 'toolPolicies decides');
    const [readAll] = checkMcpServers({ r: { url: 'http://127.0.0.1:1/mcp', policy: 'read' } }, 'test', 'home');
    assert.equal(policyOf(readAll!, 'x', { destructiveHint: true }), 'read', 'a server default overrides the hints');
  });

  it('keeps the good tools of a catalog and says why each bad one was left out', () => {
    const out = convertCatalog(
      spec!,
      [
        { name: 'ok', inputSchema: schema },
        { name: 'ok', inputSchema: schema },
        { name: 'has space', inputSchema: schema },
        { name: 'noschema' },
        { name: 'badschema', inputSchema: { type: 'nonsense' } },
        { name: 7 as unknown as string, inputSchema: schema },
      ],
      noCall,
    );
    assert.deepEqual(out.tools.map((t) => t.name), ['mcp__s__ok']);
    assert.deepEqual(out.refused.map((r) => r.name), ['ok', 'has space', 'noschema', 'badschema', '(unnamed)']);
    for (const r of out.refused) assert.ok(r.reason.length > 0);
  });

  it('a catalog of 10,000 tools is cut at the catalog bound, not taken whole', () => {
    const listed = Array.from({ length: 10_000 }, (_, i) => ({ name: `t${i}`, inputSchema: schema }));
    const out = convertCatalog(spec!, listed, noCall);
    assert.equal(out.tools.length, 1000);
    assert.equal(out.refused.length, 9000);
  });

  it('reads results: text bounded, structured content as the value, isError as a failure, unknown content named', () => {
    const r = resultOf('s', 't', { content: [{ type: 'text', text: 'x'.repeat(300_000) }, { type: 'audio', data: '' }], structuredContent: { a: 1 } });
    assert.deepEqual(r.value, { a: 1 });
    assert.ok((r.content![0] as { text: string }).text.length < 270_000);
    assert.match((r.content![1] as { text: string }).text, /audio content/);
    assert.throws(() => resultOf('s', 't', { content: [{ type: 'text', text: 'nope' }], isError: true }), /nope/);
    assert.deepEqual(resultOf('s', 't', 'garbage').value, { text: '' });
  });

  it('refuses a config entry with neither command nor url, or an unknown field, naming it', () => {
    assert.throws(() => checkMcpServers({ x: { args: [] } }, 'config.json', 'home'), /config\.json: mcpServers/);
    assert.throws(() => checkMcpServers({ x: { command: 'a', unknown: 1 } }, 'config.json', 'home'), /mcpServers/);
    assert.throws(() => checkMcpServers({ 'bad name!': { command: 'a' } }, 'config.json', 'home'), /mcpServers/);
  });
});
