import type { EventTap } from '../events/bus.js';
import type { Logger } from '../log.js';
import { eventsSubject } from './subjects.js';
import type { BusTransport } from './transport.js';

/**
 * The tap a session's event bus gets on a node with a cluster bus: each accepted
 * event goes out on the session's subject as `{"epoch":…,"event":<envelope>}`,
 * built from the frame's one serialization, while `watched()` says another node
 * streams the session (a local subscriber is fed by the bus itself, so an event
 * nobody follows costs no message). An event too big for the bus is not
 * sent; followers see the gap in the ids and end their streams, and the client's
 * resume replays it from the owner's ring (docs/cluster-bus.md).
 */
export function clusterEventTap(transport: BusTransport, sessionId: string, log: Logger, watched: () => boolean = () => true): EventTap {
  const subject = eventsSubject(sessionId);
  const prefix = '{"epoch":';
  return (frame, epoch) => {
    if (!watched()) return;
    const message = `${prefix}${JSON.stringify(epoch)},"event":${frame.json}}`;
    try {
      transport.publish(subject, message);
    } catch (err) {
      log.warn({ err, sessionId, eventId: frame.envelope.id }, 'event not published on the cluster bus');
    }
  };
}
