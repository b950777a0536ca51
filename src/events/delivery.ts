/** A write a subscriber holds back while one frame is delivered to every subscriber. */
export interface HeldWrite {
  release(): void;
}

let delivering = 0;
let held: HeldWrite[] = [];

/**
 * Runs one frame's delivery to every subscriber, then releases what they held back, in the order
 * they held it. Streams on sockets hold their writes so that the frame leaves for every one of
 * them in one tight pass of system calls once the bus's loop is over: its spread from the first
 * subscriber to the last is then the system calls alone. The release comes as soon as the loop
 * returns, never later in the task, so no frame waits behind the publisher's own work.
 */
export function deliverToAll(deliver: () => void): void {
  delivering++;
  try {
    deliver();
  } finally {
    delivering--;
    if (delivering === 0 && held.length > 0) {
      const batch = held;
      held = [];
      for (const write of batch) write.release();
    }
  }
}

/** During a delivery, keeps `write` to be released when it ends and says true; outside one, false (write now). */
export function holdDuringDelivery(write: HeldWrite): boolean {
  if (delivering === 0) return false;
  held.push(write);
  return true;
}
