import type { Core } from '../../core.js';
import { clientIdOf } from '../client-id.js';
import type { HttpModule } from '../module.js';
import { param } from '../params.js';
import { openEventStream } from '../sse.js';
import { sessionSnapshot } from '../views/session.js';

/** `GET /session/{id}/events` (docs/client-api.md §7): the session's bus as a resumable SSE stream. */
export const eventsModule: HttpModule = {
  name: 'events',
  features: () => ['session_events', 'slow_client_warning'],
  register(app, core: Core) {
    app.get('/session/:id/events', async (request, reply) => {
      const clientId = clientIdOf(request);
      const session = await core.sessions.open(param(request, 'id'));
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
