import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { PgGatewayCallRepository } from '../../../src/store/pg/gateway-calls.js';
import { PgGatewayChannelRepository } from '../../../src/store/pg/gateway-channels.js';
import { openPgStore, type PgStore } from '../../../src/store/pg/store.js';
import { postgresMissing, startPostgres, type PostgresServer } from '../../support/postgres.js';

/** The gateway's rows in a cluster's PostgreSQL (migration 14): per-node call journals, channel slots counted across nodes. */
const missing = postgresMissing();
let server: PostgresServer;
let store: PgStore;

before(async () => {
  if (missing) return;
  server = await startPostgres();
  store = await openPgStore(await server.createDatabase());
});
after(async () => {
  await store?.close();
  await server?.stop();
});

const call = (id: string) => ({ id, workspaceId: 'w', sessionId: 's', tool: 'workspace_write', args: '{}', tokenId: 't', sentAt: 1 });

test('a node starting abandons only the calls its own earlier process sent, not those another node has in flight', { skip: missing }, async () => {
  const a = new PgGatewayCallRepository(store.db, 'a');
  const b = new PgGatewayCallRepository(store.db, 'b');
  await a.insert(call('from-a'));
  await b.insert(call('from-b'));
  assert.equal(await a.abandonAllSent(2), 1);
  assert.equal((await a.find('from-a'))?.state, 'abandoned');
  assert.equal((await b.find('from-b'))?.state, 'sent');
  assert.equal(await b.answer('from-b', '{"ok":true}', 3), true, 'the other node still settles its call');
});

test("pruning drops a vanished node's calls still sent after the whole retention, never this node's own or a recent one", { skip: missing }, async () => {
  const a = new PgGatewayCallRepository(store.db, 'prune-a');
  const gone = new PgGatewayCallRepository(store.db, 'prune-gone');
  await gone.insert({ ...call('old-of-gone'), sentAt: 10 });
  await gone.insert({ ...call('new-of-gone'), sentAt: 1_000 });
  await a.insert({ ...call('old-of-a'), sentAt: 10 });
  await a.pruneSettledBefore(500);
  assert.equal(await a.find('old-of-gone'), undefined);
  assert.equal((await a.find('new-of-gone'))?.state, 'sent', 'a call sent within the retention may still be in flight');
  assert.equal((await a.find('old-of-a'))?.state, 'sent', 'its own calls are abandoned at its start, not pruned unsettled');
});

test('channel slots are counted across nodes per token and in all, and a node clearing its rows frees its slots', { skip: missing }, async () => {
  const rows = new PgGatewayChannelRepository(store.db);
  const claim = (claimId: string, nodeId: string, tokenId: string) => rows.claim({ claimId, nodeId, workspaceId: 'w', tokenId }, 3, 2, 60_000);
  assert.equal(await claim('c1', 'a', 't1'), null);
  assert.equal(await claim('c2', 'b', 't1'), null);
  assert.equal(await claim('c3', 'a', 't1'), 'token');
  assert.equal(await claim('c4', 'b', 't2'), null);
  assert.equal(await claim('c5', 'a', 't3'), 'cluster');
  await rows.clearNode('a');
  assert.equal(await claim('c6', 'b', 't1'), null, "a's slot of t1 is free again");
  await rows.release('c6');
  await rows.claim({ claimId: 'lapsed', nodeId: 'c', workspaceId: 'w', tokenId: 't9' }, 10, 10, -1);
  assert.equal(await claim('c7', 'b', 't3'), null, 'a lapsed row does not count');
});

test('a handed-over call is adopted once, only from the node that sent it, and its sender restarting no longer abandons it', { skip: missing }, async () => {
  const sender = new PgGatewayCallRepository(store.db, 'adopt-h');
  const first = new PgGatewayCallRepository(store.db, 'adopt-n');
  const second = new PgGatewayCallRepository(store.db, 'adopt-m');
  await sender.insert(call('handed'));
  assert.equal(await second.adopt('handed', 'adopt-x'), false, 'only from the node its row names');
  assert.equal(await first.adopt('handed', 'adopt-h'), true);
  assert.equal(await second.adopt('handed', 'adopt-h'), false, 'never taken by two nodes');
  assert.equal(await sender.abandonAllSent(2), 0, "the sender's restart leaves the adopted call alone");
  assert.equal(await first.answer('handed', '{"ok":true}', 3), true);
  assert.equal(await first.adopt('handed', 'adopt-n'), false, 'a settled call is not adopted');
});

test('the holders of a workspace are listed with the node of its oldest live channel first', { skip: missing }, async () => {
  const rows = new PgGatewayChannelRepository(store.db);
  const open = (claimId: string, nodeId: string, leaseMs = 60_000) => rows.claim({ claimId, nodeId, workspaceId: 'order', tokenId: claimId }, 100, 100, leaseMs);
  await open('o1', 'later');
  await open('o2', 'later');
  await new Promise((r) => setTimeout(r, 5));
  await open('o3', 'earliest-id');
  await open('o4', 'lapsed', -1);
  assert.deepEqual(await rows.holdersOf('order'), ['later', 'earliest-id']);
  await rows.release('o1');
  await rows.release('o2');
  assert.deepEqual(await rows.holdersOf('order'), ['earliest-id']);
});
