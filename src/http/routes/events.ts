import type { Core } from '../../core.js';
import { clientIdOf } from '../client-id.js';
import type { HttpModule } from '../module.js';
import { param } from '../params.js';
import { openEventStream, openFollowedStream } from '../sse.js';
import { sessionSnapshot } from '../views/session.js';

/** `GET /session/{id}/events` (docs/client-api.md §7): the session's bus as a resumable SSE stream. */
export const eventsModule: HttpModule = {
  name: 'events',
  features: () => ['session_events', 'slow_client_warning'],
  register(app, core: Core) {
    app.get('/session/:id/events', async (request, reply) => {
      const clientId = clientIdOf(request);
      const sessionId = param(request, 'id');
      const where = core.cluster ? await core.cluster.locate(sessionId) : undefined;
      if (core.cluster && where?.kind === 'remote') {
        const { cluster } = core;
        await openFollowedStream(request, reply, (options) => cluster.follow(sessionId, where.nodeId, options), {
          // The owner fills the snapshot in (docs/cluster-bus.md); this node only asks for one.
          snapshot: () => ({}),
          ...(clientId ? { clientId } : {}),
          stats: core.eventStats,
          clock: core.clock,
        });
        return;
      }
      const session = await core.sessions.open(sessionId);
      session.touch();
      await openEventStream(request, reply, session.bus, {
        snapshot: () => sessionSnapshot(session),
        ...(clientId ? { clientId } : {}),
        stats: core.eventStats,
        clock: core.clock,
      });
    });
  },
};
