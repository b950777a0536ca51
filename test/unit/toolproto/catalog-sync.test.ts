import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CATALOG_SCHEMA } from '../../../src/protocol/tools/catalog.js';
import { CatalogSync, type IndexedTool } from '../../../src/toolproto/catalog-sync.js';
import { DefinitionCache } from '../../../src/toolproto/definition-cache.js';
import { definitionsAnswer, indexAnswer, type RawTool } from '../../support/raw-app.js';

const TOOLS: RawTool[] = [{ id: 'a' }, { id: 'b' }];

/** An application that answers queries from a script, counting what it was asked. */
function scriptedApplication(tools: RawTool[]) {
  const asked: Record<string, unknown>[] = [];
  let gate: Promise<void> = Promise.resolve();
  return {
    asked,
    hold(): () => void {
      let open!: () => void;
      gate = new Promise((r) => (open = r));
      return open;
    },
    async query(payload: Record<string, unknown>) {
      asked.push(payload);
      await gate;
      if (payload.detail === 'definitions') return definitionsAnswer(tools, payload.ids as string[]);
      if (payload.ifRevision === 'sha256:catalog-1') return { schema: CATALOG_SCHEMA, revision: 'sha256:catalog-1', unchanged: true };
      return indexAnswer(tools);
    },
  };
}

describe('the host copy of an application catalog', () => {
  it('coalesces refreshes asked for while one waits to start into one query', async () => {
    const app = scriptedApplication(TOOLS);
    const published: IndexedTool[][] = [];
    const sync = new CatalogSync({ query: (p) => app.query(p), cache: new DefinitionCache(), publish: (t) => void published.push([...t]), hints: {} });
    const open = app.hold();
    const first = sync.refresh();
    const second = sync.refresh();
    const third = sync.refresh();
    assert.equal(second, first);
    assert.equal(third, first);
    open();
    await Promise.all([first, second, third]);
    assert.deepEqual(app.asked.map((q) => q.detail), ['index', 'definitions']);
    assert.equal(published.length, 1);
    assert.deepEqual(published[0]!.map((t) => t.definition.id), ['a', 'b']);
  });

  it('queues one more refresh behind a running one, since the catalog may have moved after it was asked', async () => {
    const app = scriptedApplication(TOOLS);
    const sync = new CatalogSync({ query: (p) => app.query(p), cache: new DefinitionCache(), publish: () => undefined, hints: { maxToolPolicy: 'read' } });
    await sync.refresh();
    const open = app.hold();
    const running = sync.refresh();
    await Promise.resolve();
    await Promise.resolve();
    const queued = sync.refresh();
    const sharing = sync.refresh();
    assert.notEqual(queued, running);
    assert.equal(sharing, queued);
    open();
    await Promise.all([running, queued]);
    assert.equal(app.asked.length, 4, 'index + definitions, then two conditional index queries');
    assert.deepEqual(app.asked[2], { detail: 'index', ifRevision: 'sha256:catalog-1', ifAvailabilityRevision: 'sha256:avail-1', maxToolPolicy: 'read' });
  });

  it('gives up when the answers never agree, instead of asking forever', async () => {
    const liar = async () => ({ schema: CATALOG_SCHEMA, revision: 'sha256:elsewhere', unchanged: true });
    const sync = new CatalogSync({ query: liar, cache: new DefinitionCache(), publish: () => undefined, hints: {} });
    await assert.rejects(sync.refresh(), { code: 'protocol_error' });
  });
});

describe('the definition cache', () => {
  it('keeps the most recently used definitions up to its capacity', () => {
    const cache = new DefinitionCache(2);
    const def = (id: string) => ({ id, name: id, description: '', category: 'c', policy: 'read', inputSchema: {} });
    cache.set('r1', def('one'));
    cache.set('r2', def('two'));
    assert.ok(cache.get('r1'));
    cache.set('r3', def('three'));
    assert.equal(cache.has('r2'), false, 'the least recently used went first');
    assert.ok(cache.has('r1'));
    assert.ok(cache.has('r3'));
  });
});
