// A session's event stream (`GET /session/{id}/events`) as the benchmarks read it: one connection
// of its own, every frame kept with the hrtime it arrived at, so "POST prompt → turn_complete" is
// timed to the moment the client could have seen the frame — even when the frame arrives before
// the prompt's 202 has been read.
import http from 'node:http';

/** How long a benchmark waits for a frame before it gives up on the daemon (an instant model turn takes ms). */
export const FRAME_TIMEOUT_MS = 60_000;

/**
 * Incremental parser of `text/event-stream` (WHATWG HTML §9.2 framing): `push(text)` with any
 * chunking; `onFrame({id, event, data, comments})` for each blank-line-terminated block that
 * carries data or an event name. `data` is the data lines joined with "\n", `comments` the
 * `:` lines (heartbeats). Fields without a value are kept as "".
 */
export function sseParser(onFrame) {
  let buffered = '';
  let frame = newFrame();
  function newFrame() {
    return { id: undefined, event: undefined, data: undefined, comments: [] };
  }
  function line(text) {
    if (text === '') {
      if (frame.data !== undefined || frame.event !== undefined) onFrame(frame);
      frame = newFrame();
      return;
    }
    if (text.startsWith(':')) {
      frame.comments.push(text.slice(1).trim());
      return;
    }
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') frame.data = frame.data === undefined ? value : `${frame.data}\n${value}`;
    else if (field === 'event') frame.event = value;
    else if (field === 'id') frame.id = value;
  }
  return {
    push(text) {
      buffered += text;
      let end;
      while ((end = buffered.search(/\r\n|\r|\n/)) !== -1) {
        const sep = buffered[end] === '\r' && buffered[end + 1] === '\n' ? 2 : 1;
        // A lone '\r' at the very end may be the first half of "\r\n": wait for the next chunk.
        if (buffered[end] === '\r' && sep === 1 && end === buffered.length - 1) break;
        line(buffered.slice(0, end));
        buffered = buffered.slice(end + sep);
      }
    },
  };
}

/** The frame's `data` as JSON when it parses, else the raw text. */
function parseData(data) {
  if (data === undefined) return undefined;
  try {
    return JSON.parse(data);
  } catch {
    return data;
  }
}

/**
 * Opens `path` on `baseUrl` as an event stream and resolves once the daemon has answered 200
 * (headers flushed: the subscription exists). Returns
 * `{status, headers, frames, waitFor(predicate, {timeoutMs}), close()}`: `frames` holds every
 * frame so far as `{id, event, data (parsed), at (hrtime bigint)}`; `waitFor` resolves with the
 * first frame (already received or still to come) the predicate accepts.
 */
export function openEventStream(baseUrl, path, { headers = {} } = {}) {
  const target = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request({
      agent: false,
      host: target.hostname,
      port: target.port,
      path,
      method: 'GET',
      headers: { accept: 'text/event-stream', ...headers },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      if (res.statusCode !== 200) {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => reject(new Error(`GET ${path} -> ${res.statusCode}: ${Buffer.concat(chunks).toString('utf8').slice(0, 300)}`)));
        return;
      }
      resolve(streamOf(req, res));
    });
    req.end();
  });
}

function streamOf(req, res) {
  const frames = [];
  const waiters = new Set();
  let ended = null;
  const parser = sseParser((f) => {
    const frame = { id: f.id, event: f.event, data: parseData(f.data), at: process.hrtime.bigint() };
    frames.push(frame);
    for (const w of waiters) if (w.predicate(frame)) w.settle(frame);
  });
  res.setEncoding('utf8');
  res.on('data', (text) => parser.push(text));
  const finish = (why) => {
    ended ??= why;
    for (const w of waiters) w.fail(new Error(`event stream ended (${ended}) before the awaited frame`));
  };
  res.on('end', () => finish('end'));
  res.on('error', (e) => finish(e.message));
  res.on('close', () => finish('closed'));

  function waitFor(predicate, { timeoutMs = FRAME_TIMEOUT_MS } = {}) {
    const seen = frames.find(predicate);
    if (seen) return Promise.resolve(seen);
    if (ended) return Promise.reject(new Error(`event stream ended (${ended}) before the awaited frame`));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const types = frames.slice(-10).map((f) => f.event).join(', ');
        w.fail(new Error(`no awaited frame within ${timeoutMs} ms (last frames: ${types || 'none'})`));
      }, timeoutMs);
      const w = {
        predicate,
        settle: (frame) => {
          clearTimeout(timer);
          waiters.delete(w);
          resolve(frame);
        },
        fail: (error) => {
          clearTimeout(timer);
          waiters.delete(w);
          reject(error);
        },
      };
      waiters.add(w);
    });
  }

  return {
    status: res.statusCode,
    headers: res.headers,
    frames,
    waitFor,
    close() {
      req.destroy();
    },
  };
}
