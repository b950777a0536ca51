import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { systemClock } from '../../../src/clock.js';
import { silentLogger } from '../../../src/log.js';
import { ApplicationToolRegistry } from '../../../src/tools/application-registry.js';
import { CLOSE_REPLACED } from '../../../src/toolproto/app-session.js';
import { envelope } from '../../../src/protocol/toolproto/envelope.js';
import type { FrameSocket } from '../../../src/toolproto/host-connection.js';
import { ToolProtocolHost } from '../../../src/toolproto/host.js';
import { definitionsAnswer, indexAnswer, until, type RawTool } from '../../support/raw-app.js';

/** One application socket as the host sees it: the frames the host sent, and whether it closed it. */
class RecordedSocket implements FrameSocket {
  readonly sent: Record<string, any>[] = [];
  closedWith: number | undefined;
  send(text: string): void {
    this.sent.push(JSON.parse(text));
  }
  close(code: number): void {
    this.closedWith = code;
  }
  query(detail: 'index' | 'definitions'): Promise<Record<string, any>> {
    return until(() => this.sent.find((f) => f.type === 'tool.query' && f.payload?.detail === detail));
  }
}

const WORKSPACE = 'ws-supersede';
const IDENTITY = { appName: 'notes', maxPolicy: 'read' as const };
const answer = (request: Record<string, any>, payload: unknown) =>
  JSON.stringify(envelope('tool.catalog', `${request.id}.answer`, payload, { replyTo: request.id, now: Date.now() }));

/** Plays one application's discovery: the index, then the definitions it is asked for. */
async function serve(host: { receive(data: string, isBinary: boolean): void }, socket: RecordedSocket, tools: RawTool[], revision: string) {
  host.receive(answer(await socket.query('index'), indexAnswer(tools, revision)), false);
  const definitions = await socket.query('definitions');
  host.receive(answer(definitions, definitionsAnswer(tools, definitions.payload.ids, revision)), false);
}

describe('an application connection replaced by a newer one', () => {
  it('cannot publish over the newer connection a catalog it was still fetching when it was replaced', async () => {
    const registry = new ApplicationToolRegistry();
    const host = new ToolProtocolHost({ registry, clock: systemClock, log: silentLogger() });
    const oldSocket = new RecordedSocket();
    const older = host.attach(oldSocket, IDENTITY, WORKSPACE);
    await oldSocket.query('index'); // its first catalog query is out, unanswered

    const newSocket = new RecordedSocket();
    const newer = host.attach(newSocket, IDENTITY, WORKSPACE);
    assert.equal(oldSocket.closedWith, CLOSE_REPLACED);
    await serve(newer, newSocket, [{ id: 'current' }], 'sha256:new-catalog');
    await until(() => registry.list(WORKSPACE).length > 0);

    // The old socket's answer was already on its way when the close went out: it still arrives.
    await serve(older, oldSocket, [{ id: 'stale' }], 'sha256:old-catalog');
    await until(() => older.sync.currentRevision === 'sha256:old-catalog');

    assert.deepEqual(registry.list(WORKSPACE).map((t) => t.name), ['current']);
    assert.equal(registry.link(WORKSPACE, IDENTITY.appName), newer, 'calls keep going to the connection that is open');
    host.shutdown();
  });
});
