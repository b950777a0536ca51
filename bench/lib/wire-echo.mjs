// The wire alone, in the gateway owner's place: a child process that dials a WebSocket (as `berth
// connect` dials B) and answers every message at once with a text of the length the message asks
// for (its digits before the first `:`), doing nothing else. `bench/gateway.mjs` times these round
// trips in the same placements as the channel's calls, so the channel's rows have beside them what
// two Node processes pay for the same frames on the same loopback and CPUs.
//
//   node bench/lib/wire-echo.mjs <ws url>      prints `wire ready` on stdout once connected
import WebSocket from 'ws';

const socket = new WebSocket(process.argv[2], { perMessageDeflate: false });
socket.on('open', () => console.log('wire ready'));
socket.on('message', (data) => {
  const text = data.toString();
  const length = Number(text.slice(0, text.indexOf(':')));
  socket.send('x'.repeat(length));
});
socket.on('close', () => process.exit(0));
socket.on('error', (err) => {
  console.error(`wire-echo: ${err.message}`);
  process.exit(1);
});
