import type { Core } from '../../core.js';
import type { HttpModule } from '../module.js';
import { findWebApp, takesGzip, WEB_APP_CSP, type WebApp } from '../web-app.js';
import { packageVersion } from '../../package-files.js';


/**
 * `/` (issue 11): the URL `berth serve` prints should say what answers there
 * and where to go, not `404 Cannot GET /`. A short page for a browser, the same
 * facts as JSON for anything else. The built-in web app (issue 13) takes `/`
 * over for a browser when it was built; `--no-web` (Config.web false) keeps this page.
 */
export function landing(core: Core, app: (() => WebApp) | null = null): Record<string, unknown> {
  return {
    name: 'berth',
    version: packageVersion(),
    what: 'A self-hosted daemon where coding agents work on projects. This port serves its client API (REST + Server-Sent Events, compatible with qwen serve).',
    web: !core.config.web
      ? 'The web app is turned off (--no-web): use a client such as the @qwen-code/sdk DaemonClient, or the routes below.'
      : app
        ? 'The web app answers a browser at this address (/): sign in with the owner token, if the daemon has one.'
        : 'No web app is built into this daemon yet: use a client such as the @qwen-code/sdk DaemonClient, or the routes below.',
    routes: {
      '/health': 'is the daemon up',
      '/capabilities': 'features, limits and workspaces (with their module sockets)',
      '/sessions': 'every stored session',
      'POST /session': 'create a session; then /session/{id}/prompt, /session/{id}/events',
    },
    docs: 'README.md of the berth package: Quick start, then Sessions and the client API',
  };
}

const escape = (text: string) => text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

function page(info: ReturnType<typeof landing>): string {
  const routes = Object.entries(info.routes as Record<string, string>)
    .map(([route, what]) => `<li><code>${escape(route)}</code> — ${escape(what)}</li>`)
    .join('');
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Berth</title>' +
    '<meta name="viewport" content="width=device-width, initial-scale=1"></head><body>' +
    `<h1>Berth ${escape(String(info.version))}</h1><p>${escape(String(info.what))}</p>` +
    `<p>${escape(String(info.web))}</p><ul>${routes}</ul><p>${escape(String(info.docs))}.</p></body></html>`
  );
}

export const landingModule: HttpModule = {
  name: 'landing',
  features: () => [],
  register(app, core: Core) {
    const web = core.config.web ? findWebApp() : null;
    if (web) {
      app.get('/assets/:name', async (request, reply) => {
        const file = web().assets.get((request.params as { name: string }).name);
        if (!file) return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
        // Names carry a content hash: a changed file is a new name, so a browser may keep these for good.
        reply.header('Cache-Control', 'public, max-age=31536000, immutable').header('Vary', 'Accept-Encoding').type(file.type);
        // The build's gzip copy (a third of the script's size) to a browser that takes it.
        if (file.gzip && takesGzip(request.headers['accept-encoding'])) return reply.header('Content-Encoding', 'gzip').send(file.gzip);
        return reply.send(file.body);
      });
    }
    app.get('/', async (request, reply) => {
      const info = landing(core, web);
      const accept = String(request.headers.accept ?? '');
      if (web && /\btext\/html\b/.test(accept)) {
        return reply
          .header('content-security-policy', WEB_APP_CSP)
          .header('Cache-Control', 'no-store')
          .header('Referrer-Policy', 'no-referrer')
          .type('text/html; charset=utf-8')
          .send(web().index);
      }
      if (/\btext\/html\b/.test(accept)) {
        // No script and nothing fetched: the page cannot do anything but be read.
        return reply
          .header('content-security-policy', "default-src 'none'")
          .type('text/html; charset=utf-8')
          .send(page(info));
      }
      return info;
    });
  },
};
