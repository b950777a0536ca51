import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { endStreamsOfGoneOwners } from '../../../src/cluster/owner-watch.js';

describe('watching the owners of followed sessions', () => {
  it('ends the streams of a session whose owner’s lease ran out or went to another node, and only those', async () => {
    const ended: string[] = [];
    const asked: string[][] = [];
    await endStreamsOfGoneOwners({
      followed: () => new Map([['kept', 'n1'], ['expired', 'n1'], ['moved', 'n1'], ['elsewhere', 'n3']]),
      holders: async (ids) => {
        asked.push([...ids]);
        return new Map([['kept', 'n1'], ['moved', 'n2'], ['elsewhere', 'n3']]);
      },
      ownerGone: (sessionId, nodeId) => ended.push(`${sessionId}@${nodeId}`),
    });
    assert.deepEqual(asked, [['kept', 'expired', 'moved', 'elsewhere']], 'one look names every followed session');
    assert.deepEqual(ended, ['expired@n1', 'moved@n1']);
  });

  it('asks nothing while no session is followed', async () => {
    let asked = 0;
    await endStreamsOfGoneOwners({
      followed: () => new Map(),
      holders: async () => {
        asked++;
        return new Map();
      },
      ownerGone: () => assert.fail('nothing is followed'),
    });
    assert.equal(asked, 0);
  });
});
