import type { Writable } from 'node:stream';

/**
 * Holds a socket's writes until Node next runs its `process.nextTick` queue (right after the
 * current callback, or after the promise jobs running now), so that what one pass writes leaves
 * in one write(2) and wakes the reader once, instead of a system call and a wake-up each: the
 * frames of gateway calls settled together, a model answer's last SSE frames with its
 * `turn_complete`, one event's fan-out to every stream in one tight pass. A lone write still
 * leaves in its own tick: nothing waits for a timer or for I/O. Writes keep their order, and
 * back-pressure is unchanged (a corked socket counts what it holds); a cork of the writer's own
 * (ws around a frame's two parts, node:http around a chunk) nests inside this one.
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
