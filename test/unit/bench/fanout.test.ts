import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import { describe, it } from 'node:test';

interface LightStream {
  arrivals: Map<string, bigint>;
  turnsDone: number;
  close: () => void;
}
const { spreads, frameScanner, openLightStream } = (await import(new URL('../../../bench/fanout.mjs', import.meta.url).href)) as {
  spreads: (d: unknown, ids?: Iterable<string>) => number[];
  openLightStream: (baseUrl: string, sessionId: string) => Promise<LightStream>;
  frameScanner: (onId: (id: string) => void, onTurn: () => void) => (text: string) => void;
};

const ms = (n: number) => BigInt(Math.round(n * 1e6));
const stream = (arrivals: Record<string, number>) => ({ arrivals: new Map(Object.entries(arrivals).map(([id, at]) => [id, ms(at)])) });

describe('the fan-out bench', () => {
  it('takes a frame’s spread from its first to its last stream, whichever stream is first', () => {
    const d = { streams: [stream({ '1': 10, '2': 20 }), stream({ '1': 9, '2': 23.5 }), stream({ '1': 12, '2': 21 })] };
    assert.deepEqual(spreads(d), [3, 3.5]);
  });

  it('takes the spreads of the frames asked for only, in their order', () => {
    const d = { streams: [stream({ '1': 10, '2': 20, '3': 30 }), stream({ '1': 11, '2': 22, '3': 33 })] };
    assert.deepEqual(spreads(d, ['3', '1', 'unknown']), [3, 1]);
  });

  it('leaves out a frame that did not reach every stream', () => {
    const d = { streams: [stream({ '1': 10, '2': 20 }), stream({ '2': 22 })] };
    assert.deepEqual(spreads(d), [2]);
  });

  it('finds every whole id line and turn_complete in chunked SSE, whatever reads cut it', () => {
    const frame = (id: number, type: string) => {
      const body = `id: ${id}\nevent: ${type}\ndata: {"id":${id},"type":"${type}"}\n\n`;
      return `${body.length.toString(16)}\r\n${body}\r\n`;
    };
    const wire = `\r\nd\r\nretry: 3000\n\n\r\n${frame(1, 'session_update')}${frame(2, 'session_update')}: heartbeat\n\n${frame(10, 'turn_complete')}`;
    for (const cuts of [[], [wire.indexOf('id: 2') + 2], [wire.indexOf('id: 10') - 1, wire.indexOf('turn_complete') + 4], Array.from({ length: wire.length }, (_, i) => i)]) {
      const ids: string[] = [];
      let turns = 0;
      const scan = frameScanner((id) => ids.push(id), () => turns++);
      let from = 0;
      for (const cut of [...cuts, wire.length]) {
        scan(wire.slice(from, cut));
        from = cut;
      }
      assert.deepEqual(ids, ['1', '2', '10'], `cut at ${cuts.length} places`);
      assert.equal(turns, 1);
    }
  });

  it('reads a stream’s frames from the socket: each id once, with the turns it completed', async () => {
    let res!: ServerResponse;
    const server = createServer((req, r) => {
      if (!req.url?.startsWith('/session/s%201/')) return void r.writeHead(404).end();
      res = r;
      r.writeHead(200, { 'content-type': 'text/event-stream' });
      r.flushHeaders();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      await assert.rejects(openLightStream(url, 'elsewhere'), /404/);
      const stream = await openLightStream(url, 's 1');
      const turnDone = new Promise<void>((resolve) => Object.assign(stream, { onTurn: resolve }));
      res.write('id: 1\nevent: session_update\ndata: {}\n\n');
      res.write('id: 2\nevent: turn_complete\ndata: {}\n\n');
      await turnDone;
      assert.deepEqual([...stream.arrivals.keys()], ['1', '2']);
      assert.ok([...stream.arrivals.values()].every((at) => typeof at === 'bigint' && at > 0n));
      assert.equal(stream.turnsDone, 1);
      stream.close();
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
