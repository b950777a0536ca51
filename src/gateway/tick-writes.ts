import type { Writable } from 'node:stream';

/**
 * Holds a channel socket's writes until the end of the current tick, so that the frames of calls
 * settled together (one read of the socket that brought several frames, with calls in flight) leave
 * in one write(2) and wake the peer once, instead of a system call and a wake-up each. A lone frame
 * still leaves in the tick it was sent in: nothing waits for a timer or for I/O. Frames keep their
 * order; ws's own cork around a frame's two parts nests inside this one.
 *
 * Returns the function to call before each send on the socket.
 */
export function writesOfOneTick(socket: Writable): () => void {
  let held = false;
  const release = () => {
    held = false;
    socket.uncork();
  };
  return () => {
    if (held || socket.destroyed) return;
    held = true;
    socket.cork();
    process.nextTick(release);
  };
}
