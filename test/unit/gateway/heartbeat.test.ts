import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { resolveConfig } from '../../../src/config/config.js';
import { channelUpgradeRoute } from '../../../src/gateway/host/channel-route.js';
import { ChannelHub } from '../../../src/gateway/host/hub.js';
import { dispatchUpgrade } from '../../../src/net/upgrade.js';
import { silentLogger } from '../../../src/log.js';
import { SqliteGatewayCallRepository } from '../../../src/store/repos/gateway-calls.js';
import { TokenService } from '../../../src/tokens/tokens.js';
import { until } from '../../support/gateway.js';
import { fixedClock, tempStore } from '../../support/tools.js';
import { sqliteRepositories } from '../../../src/main/repositories.js';

/**
 * B notices a dead owner: a peer that completed the handshake but answers no
 * ping is cut after one missed pong, so its unanswered calls can be sent again
 * on the next channel instead of waiting on a socket nobody reads.
 */

const store = tempStore();
const server = createServer();
let hub: ChannelHub;
let token: string;

before(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const config = resolveConfig({ port, hostname: '127.0.0.1', home: store.home, workspaces: [store.home], remoteWorkspaces: ['proj'], modelServices: [] }, {});
  const tokens = new TokenService(sqliteRepositories(store.store.db).tokens, null);
  token = (await tokens.createChannelToken('proj')).token;
  hub = new ChannelHub({
    limits: { maxChannels: 20, maxChannelsPerToken: 4, maxInflightCallsPerWorkspace: 4, maxFrameBytes: 2 * 1024 * 1024, channelWaitMs: 1000 },
    intentions: new Map([['proj', 'proj']]),
    journal: new SqliteGatewayCallRepository(store.store.db),
    clock: fixedClock(),
    log: silentLogger(),
  });
  const route = channelUpgradeRoute({ security: { config, tokens, port: () => port }, hub, log: silentLogger(), maxFrameBytes: config.maxFrameBytes, pingIntervalMs: 30 });
  server.on('upgrade', dispatchUpgrade([route]));
});
after(async () => {
  hub.shutdown();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  store.close();
});

test('a peer that stops answering pings is cut and its channel slot freed', async () => {
  const port = (server.address() as AddressInfo).port;
  const socket = connect(port, '127.0.0.1');
  let received = '';
  socket.on('data', (d) => (received += d.toString('latin1')));
  const closed = new Promise<void>((r) => socket.once('close', () => r()));
  socket.write(
    [
      'GET /api/ai-gateway/v1/workspaces/proj/channel HTTP/1.1',
      `Host: 127.0.0.1:${port}`,
      'Upgrade: websocket',
      'Connection: Upgrade',
      'Sec-WebSocket-Version: 13',
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
      `Authorization: Bearer ${token}`,
      '',
      '',
    ].join('\r\n'),
  );
  await until(() => received.includes('"type":"ready"'));
  assert.match(received, /^HTTP\/1\.1 101 /);
  assert.equal(hub.counters().gatewayChannels, 1);
  // This peer reads pings and never answers them.
  await closed;
  await until(() => hub.counters().gatewayChannels === 0);
});
