import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestDaemon, type TestDaemon } from '../support/daemon.js';
import { channelPathFor, dialChannel } from '../support/gateway.js';
import { RawApp, type Refusal } from '../support/raw-app.js';

/**
 * design.md, Security rules that every face keeps: the browser checks of the
 * client API (Origin allow-list; on a loopback bind, a loopback Host with our
 * port) guard the two WebSocket faces on the shared listener too, before any
 * token is looked at. Each refusal is paired with the same upgrade admitted
 * without the offending header, so it is the header that is refused.
 */

const REMOTE = 'remote-upgrade-checks';
const FOREIGN_ORIGIN = { origin: 'http://evil.example' };
const rebound = (d: TestDaemon) => ({ host: `evil.example:${d.daemon.port}` });

describe('browser checks on the WebSocket upgrades of a loopback daemon', () => {
  let d: TestDaemon;
  before(async () => {
    d = await startTestDaemon({ config: { remoteWorkspaces: [REMOTE] } });
  });
  after(() => d.close());

  const dial = async (headers: Record<string, string>) => {
    const token = (await d.daemon.core.tokens.createChannelToken(REMOTE)).token;
    return dialChannel(d.url, channelPathFor(REMOTE), { authorization: `Bearer ${token}`, ...headers });
  };
  const connectApp = async (headers: Record<string, string>) => {
    const token = (await d.daemon.core.tokens.createAppToken(`app-${Math.random().toString(36).slice(2)}`, 'read')).token;
    return RawApp.connect(d, token, { headers });
  };
  const appRefusal = (p: Promise<RawApp>) =>
    p.then(
      async (app) => {
        await app.close();
        return assert.fail('the upgrade was accepted');
      },
      (r: Refusal) => r,
    );

  it('a gateway channel from a foreign Origin is refused with 403 cors_denied', async () => {
    const refused = await dial(FOREIGN_ORIGIN);
    assert.equal(refused.ok, false);
    if (!refused.ok) assert.deepEqual([refused.status, refused.body.code], [403, 'cors_denied']);
    const admitted = await dial({});
    assert.equal(admitted.ok, true);
    if (admitted.ok) await admitted.channel.close();
  });

  it('a gateway channel whose Host is not a loopback name is refused with 403 invalid_host (DNS rebinding)', async () => {
    const refused = await dial(rebound(d));
    assert.equal(refused.ok, false);
    if (!refused.ok) assert.deepEqual([refused.status, refused.body.code], [403, 'invalid_host']);
    const admitted = await dial({ host: `localhost:${d.daemon.port}` });
    assert.equal(admitted.ok, true);
    if (admitted.ok) await admitted.channel.close();
  });

  it('an application whose Host is not a loopback name is refused with 403 invalid_host (DNS rebinding)', async () => {
    const refused = await appRefusal(connectApp(rebound(d)));
    assert.deepEqual([refused.status, refused.body.code], [403, 'invalid_host']);
    const admitted = await connectApp({ host: `localhost:${d.daemon.port}` });
    await admitted.close();
  });

  it('an application from a foreign Origin is refused before its token is read', async () => {
    // A browser page cannot learn whether a token it guessed is valid: the Origin is refused first.
    const refused = await appRefusal(RawApp.connect(d, 'berth_app_not-a-real-token', { headers: FOREIGN_ORIGIN }));
    assert.deepEqual([refused.status, refused.body.code], [403, 'cors_denied']);
  });
});
