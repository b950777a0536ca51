import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LeaseKeeper } from '../../../src/cluster/leases.js';
import { LeaseNode } from '../../../src/cluster/lease-node.js';
import { refuseRemoteSession } from '../../../src/cluster/remote.js';
import { silentLogger } from '../../../src/log.js';
import type { LeaseRow, PgLeaseRepository } from '../../../src/store/pg/leases.js';

const ID = '00000000-0000-4000-8000-000000000001';

/** A node over leases kept in a map: `owner` holds the session elsewhere, if given. */
function nodeWith(options: { owner?: string; exists?: boolean } = {}) {
  const held = new Set<string>();
  const calls = { acquire: 0, release: 0, recover: 0 };
  const leases = {
    holds: (id: string) => held.has(id),
    acquire: async (id: string) => {
      calls.acquire++;
      if (options.owner) return null;
      held.add(id);
      return calls.acquire;
    },
    release: async (id: string) => {
      calls.release++;
      held.delete(id);
    },
    fence: (sessionId: string) => ({ sessionId, nodeId: 'me', token: () => 1, refused: () => undefined }),
    releaseAll: async () => held.clear(),
  } as unknown as LeaseKeeper;
  const repo = {
    get: async (sessionId: string): Promise<LeaseRow | undefined> =>
      options.owner ? { sessionId, nodeId: options.owner, token: 7, valid: true } : undefined,
  } as unknown as PgLeaseRepository;
  const node = new LeaseNode({
    nodeId: 'me',
    leases,
    repo,
    recover: async () => {
      calls.recover++;
      return options.exists ?? true;
    },
    remote: refuseRemoteSession,
    log: silentLogger(),
  });
  return { node, calls, held };
}

describe('a cluster node claiming sessions', () => {
  it('takes a free session once for concurrent requests, recovering it under its lease', async () => {
    const { node, calls, held } = nodeWith();
    await Promise.all([node.claim(ID), node.claim(ID), node.claim(ID)]);
    assert.deepEqual(calls, { acquire: 1, release: 0, recover: 1 });
    assert.ok(held.has(ID));
    assert.deepEqual(await node.locate(ID), { kind: 'local' });
  });

  it('names the node that holds the session, through the one remote policy', async () => {
    const { node } = nodeWith({ owner: 'other' });
    assert.deepEqual(await node.locate(ID), { kind: 'remote', nodeId: 'other' });
    await assert.rejects(node.claim(ID), { code: 'session_on_other_node', details: { sessionId: ID, nodeId: 'other' } });
  });

  it('gives the lease back when no such session is stored', async () => {
    const { node, calls, held } = nodeWith({ exists: false });
    await node.claim(ID);
    assert.equal(calls.release, 1);
    assert.equal(held.has(ID), false);
  });

  it('refuses to take or create sessions once draining, and says it is not ready', async () => {
    const { node, calls } = nodeWith();
    node.beginDrain();
    assert.equal(node.isDraining, true);
    await assert.rejects(node.claim(ID), { code: 'node_draining' });
    await assert.rejects(node.claimNew(ID), { code: 'node_draining' });
    assert.equal(calls.acquire, 0);
  });
});
