import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connectNats } from '../../../src/cluster/nats-transport.js';
import { tabsSubject } from '../../../src/cluster/subjects.js';
import { BusTabPeers, serveTabs } from '../../../src/cluster/tab-peers.js';
import type { BusTransport } from '../../../src/cluster/transport.js';
import { silentLogger } from '../../../src/log.js';
import type { TabsHere } from '../../../src/messaging/peers.js';
import { natsMissing, startNats, type NatsServer } from '../../support/nats.js';

const skip = natsMissing();

const listed = (sessionId: string, tab: string) => ({
  sessionId,
  tab,
  title: `tab ${tab}`,
  harness: 'built-in',
  profile: 'scripted',
  network: true,
  inbox: false,
  waiting: 0,
  trouble: null,
});

describe('module tabs asked across nodes', { skip }, () => {
  let nats: NatsServer;
  let asker: BusTransport;
  let owner: BusTransport;
  let stranger: BusTransport;
  const offered: string[] = [];

  before(async () => {
    nats = await startNats();
    [asker, owner, stranger] = await Promise.all(['asker', 'owner', 'stranger'].map((name) => connectNats(nats.url, name)));
    const here: TabsHere = {
      listedHere: async (workspaceId) => (workspaceId === 'ws' ? [listed('s-2', '2'), listed('s-5', '5')] : []),
      offerHere: async (sessionId, messageId) => {
        offered.push(`${sessionId}/${messageId}`);
        return sessionId === 's-2' ? 'Delivered: tab 2 gets it as its next prompt now.' : undefined;
      },
    };
    serveTabs(owner, 'owner', here, silentLogger());
    // A node answering with a tab missing a field: that tab is left out, not half shown.
    stranger.serve(tabsSubject('stranger'), async () => JSON.stringify({ tabs: [{ ...listed('s-9', '9'), network: 'yes' }, listed('s-7', '7')] }));
    await Promise.all([owner.flush(), stranger.flush()]);
  });
  after(async () => {
    await Promise.all([asker?.close(), owner?.close(), stranger?.close()]);
    await nats?.stop();
  });

  const peers = (nodes: string[]) => new BusTabPeers({ transport: asker, nodesOf: async () => nodes, log: silentLogger(), timeoutMs: 2000 });

  it('gathers the tabs of every node the lease table names, each marked with its node; a silent node leaves only its own out', async () => {
    const tabs = await peers(['owner', 'stranger', 'gone']).tabsOf('ws');
    assert.deepEqual(
      tabs.map((t) => `${t.nodeId}:${t.tab}:${t.sessionId}`),
      ['owner:2:s-2', 'owner:5:s-5', 'stranger:7:s-7'],
    );
  });

  it('asks no node when none runs a tab of the workspace', async () => {
    assert.deepEqual(await peers([]).tabsOf('ws'), []);
  });

  it('tells the owner a message waits, and hands back its words; undefined when it no longer runs the tab or does not answer', async () => {
    assert.equal(await peers([]).offer('owner', 's-2', 'msg_1'), 'Delivered: tab 2 gets it as its next prompt now.');
    assert.equal(await peers([]).offer('owner', 's-5', 'msg_2'), undefined);
    assert.equal(await peers([]).offer('gone', 's-3', 'msg_3'), undefined);
    assert.deepEqual(offered, ['s-2/msg_1', 's-5/msg_2']);
  });
});
