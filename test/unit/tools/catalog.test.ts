import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BerthError } from '../../../src/protocol/errors/index.js';
import { answerCatalogQuery, CATALOG_SCHEMA } from '../../../src/protocol/tools/catalog.js';
import { parseCatalogQuery } from '../../../src/protocol/tools/catalog-query.js';
import { FULL_ACCESS, lowerGuard } from '../../../src/protocol/tools/guard.js';
import type { ToolAvailability } from '../../../src/tools/types.js';
import { countingTool, fixedClock } from '../../support/tools.js';

const NOW = fixedClock().now();
const READ_ONLY = { maxPolicy: 'read' } as const;

function sampleTools(mapAvailability: () => ToolAvailability = () => ({ available: true })) {
  return [
    countingTool('ui.query_nodes', { category: 'ui', description: 'Query the visual tree for nodes' }),
    countingTool('ui.perform_action', { category: 'ui', policy: 'write', description: 'Tap or type on a node' }),
    countingTool('map.capture', { category: 'map', description: 'Capture the current map', availability: mapAvailability }),
    countingTool('app.reset', { category: 'app', policy: 'critical', description: 'Erase all app data' }),
  ];
}

describe('the tool catalog', () => {
  it('hides tools above a read guard from every detail level', () => {
    const tools = sampleTools();
    for (const detail of ['full', 'index', 'definitions'] as const) {
      const answer = answerCatalogQuery(tools, READ_ONLY, { detail }, NOW);
      const ids = (answer.tools as { id: string }[]).map((t) => t.id);
      assert.deepEqual(ids, ['map.capture', 'ui.query_nodes'], detail);
    }
    const index = answerCatalogQuery(tools, READ_ONLY, { detail: 'index' }, NOW);
    assert.equal(index.totalCount, 2);
    assert.deepEqual(index.categories, { map: 1, ui: 1 });
  });

  it('lets a caller lower the guard but never raise it', () => {
    assert.deepEqual(lowerGuard(FULL_ACCESS, 'read'), { maxPolicy: 'read' });
    assert.deepEqual(lowerGuard(READ_ONLY, 'critical'), READ_ONLY);
    assert.deepEqual(lowerGuard({ maxPolicy: 'write' }, null), { maxPolicy: 'write' });
  });

  it('keeps both revisions stable for the same catalog and moves the revision when a definition changes', () => {
    const first = answerCatalogQuery(sampleTools(), FULL_ACCESS, {}, NOW);
    const again = answerCatalogQuery(sampleTools(), FULL_ACCESS, {}, NOW + 5000);
    assert.equal(first.revision, again.revision);
    assert.equal(first.availabilityRevision, again.availabilityRevision);

    const changed = sampleTools();
    changed[0] = countingTool('ui.query_nodes', { category: 'ui', description: 'Query nodes (now with paging)' });
    const after = answerCatalogQuery(changed, FULL_ACCESS, {}, NOW);
    assert.notEqual(after.revision, first.revision);
    assert.equal(after.availabilityRevision, first.availabilityRevision);

    const guarded = answerCatalogQuery(sampleTools(), READ_ONLY, {}, NOW);
    assert.notEqual(guarded.revision, first.revision, 'the guard is part of the revision');
  });

  it('moves only the availability revision when a tool becomes unavailable', () => {
    let available = true;
    const tools = sampleTools(() => (available ? { available: true } : { available: false, code: 'map_not_loaded', retryable: true }));
    const before = answerCatalogQuery(tools, FULL_ACCESS, {}, NOW);
    available = false;
    const after = answerCatalogQuery(tools, FULL_ACCESS, {}, NOW);
    assert.equal(after.revision, before.revision);
    assert.notEqual(after.availabilityRevision, before.availabilityRevision);
    const map = (after.tools as Record<string, unknown>[]).find((t) => t.id === 'map.capture')!;
    assert.deepEqual(map.runtime, { available: false, code: 'map_not_loaded', retryable: true });
    assert.equal(map.executable, false);
    const query = (after.tools as Record<string, unknown>[]).find((t) => t.id === 'ui.query_nodes')!;
    assert.equal('runtime' in query || 'executable' in query, false, 'available tools carry no runtime state');
  });

  it('answers exactly schema, revision and unchanged when both revisions still match', () => {
    const tools = sampleTools();
    const full = answerCatalogQuery(tools, FULL_ACCESS, { detail: 'index' }, NOW);
    const answer = answerCatalogQuery(
      tools,
      FULL_ACCESS,
      { detail: 'index', ifRevision: full.revision, ifAvailabilityRevision: full.availabilityRevision as string },
      NOW,
    );
    assert.deepEqual(answer, { schema: CATALOG_SCHEMA, revision: full.revision, unchanged: true });
  });

  it('answers an availability-only change with a replacement snapshot of the non-default states', () => {
    let available = true;
    const tools = sampleTools(() => (available ? { available: true } : { available: false, reason: 'No map is loaded' }));
    const known = answerCatalogQuery(tools, FULL_ACCESS, { detail: 'index' }, NOW);
    available = false;
    const answer = answerCatalogQuery(
      tools,
      FULL_ACCESS,
      { detail: 'index', ifRevision: known.revision, ifAvailabilityRevision: known.availabilityRevision as string },
      NOW,
    );
    assert.equal(answer.unchanged, true);
    assert.equal(answer.revision, known.revision);
    assert.notEqual(answer.availabilityRevision, known.availabilityRevision);
    assert.equal(answer.evaluatedAtUtc, new Date(NOW).toISOString());
    assert.deepEqual(answer.changes, { 'map.capture': { available: false, reason: 'No map is loaded' } });
    assert.equal('tools' in answer, false);
  });

  it('sends a full catalog when the caller holds an old revision', () => {
    const tools = sampleTools();
    const answer = answerCatalogQuery(tools, FULL_ACCESS, { detail: 'index', ifRevision: 'sha256:old' }, NOW);
    assert.equal('unchanged' in answer, false);
    assert.equal((answer.tools as unknown[]).length, 4);
  });

  it('gives compact index entries without schemas, and definitions by id without index metadata', () => {
    const tools = [...sampleTools(), { ...countingTool('ui.perform_gesture', { category: 'ui' }), prerequisiteToolIds: ['ui.query_nodes'] }];
    const index = answerCatalogQuery(tools, FULL_ACCESS, { detail: 'index' }, NOW);
    assert.equal(index.detail, 'index');
    assert.equal(index.count, 5);
    const gesture = (index.tools as Record<string, unknown>[]).find((t) => t.id === 'ui.perform_gesture')!;
    assert.deepEqual(Object.keys(gesture).sort(), [
      'category',
      'definitionRevision',
      'description',
      'id',
      'name',
      'policy',
      'prerequisiteToolIds',
    ]);

    const defs = answerCatalogQuery(tools, FULL_ACCESS, { detail: 'definitions', ids: ['ui.perform_action', 'map.capture'] }, NOW);
    assert.deepEqual(Object.keys(defs).sort(), ['count', 'detail', 'revision', 'schema', 'tools']);
    const entries = defs.tools as Record<string, unknown>[];
    assert.deepEqual(entries.map((t) => t.id), ['map.capture', 'ui.perform_action']);
    const action = entries[1]!;
    assert.deepEqual(action.inputSchema, { type: 'object', properties: { text: { type: 'string', maxLength: 10 } } });
    const indexed = (index.tools as Record<string, unknown>[]).find((t) => t.id === 'ui.perform_action')!;
    assert.equal(action.definitionRevision, indexed.definitionRevision, 'a definition is cached by the revision the index named');
  });

  it('returns full definitions with index metadata when no detail is asked, and says no default detail', () => {
    const answer = answerCatalogQuery(sampleTools(), FULL_ACCESS, {}, NOW);
    assert.equal('detail' in answer, false);
    assert.equal(answer.count, 4);
    assert.equal(answer.totalCount, 4);
    assert.deepEqual(answer.categories, { app: 1, map: 1, ui: 2 });
    for (const t of answer.tools as Record<string, unknown>[]) assert.equal(typeof t.inputSchema, 'object');
  });

  it('filters by query, feature, policy, executability and limit before counting', () => {
    const tools = sampleTools(() => ({ available: false }));
    const ids = (q: Parameters<typeof answerCatalogQuery>[2]) =>
      (answerCatalogQuery(tools, FULL_ACCESS, { detail: 'index', ...q }, NOW).tools as { id: string }[]).map((t) => t.id);
    assert.deepEqual(ids({ query: 'visual tree' }), ['ui.query_nodes']);
    assert.deepEqual(ids({ feature: 'ui' }), ['ui.perform_action', 'ui.query_nodes']);
    assert.deepEqual(ids({ policy: 'critical' }), ['app.reset']);
    assert.deepEqual(ids({ executableOnly: true }), ['app.reset', 'ui.perform_action', 'ui.query_nodes']);
    assert.deepEqual(ids({ limit: 1 }), ['app.reset']);
    assert.deepEqual(ids({ maxResults: 2 }), ['app.reset', 'map.capture']);
    const limited = answerCatalogQuery(tools, FULL_ACCESS, { detail: 'index', limit: 1 }, NOW);
    assert.equal(limited.count, 1);
    assert.equal(limited.totalCount, 4);
  });

  it('refuses a malformed query whole with protocol_error', () => {
    assert.deepEqual(parseCatalogQuery(undefined), {});
    assert.deepEqual(parseCatalogQuery({ detail: 'index', unknownHint: 1 }), { detail: 'index', unknownHint: 1 });
    for (const bad of [{ detail: 'everything' }, { ids: 'ui.query_nodes' }, { limit: 0 }, { executableOnly: 'yes' }, []]) {
      assert.throws(
        () => parseCatalogQuery(bad),
        (err: unknown) => err instanceof BerthError && err.code === 'protocol_error',
        JSON.stringify(bad),
      );
    }
  });
});
