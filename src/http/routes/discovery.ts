import type { Core } from '../../core.js';
import type { HttpModule } from '../module.js';
import type { HealthResponse } from '../openapi.gen.js';
import { packageVersion } from '../../package-files.js';


/** `deep`, `deep=1`, `deep=true` ask for counters; any other value is the cheap probe (docs/client-api.md §12). */
function wantsDeep(query: Record<string, string | undefined>): boolean {
  if (!('deep' in query)) return false;
  const v = query.deep;
  return v === '' || v === '1' || v === 'true';
}

/** Tags beyond the route modules: Berth's other faces, and conditional ones (docs/client-api.md §3.2) while their switch is on. */
function conditionalFeatures(core: Core): string[] {
  const c = core.config;
  // Berth's own faces beside the client API: the gateway channel (docs/gateway.md), the tool protocol
  // (docs/tool-protocol.md) and the module protocol (docs/modules.md); each is always served.
  const tags: string[] = ['berth_gateway_channel', 'berth_tool_protocol', 'berth_module_protocol'];
  if (c.requireAuth) tags.push('require_auth');
  if (c.allowOrigins.length > 0) tags.push('allow_origin');
  if (c.promptDeadlineMs !== null) tags.push('prompt_absolute_deadline');
  if (c.rateLimits.length > 0) tags.push('rate_limit');
  if (core.workspaces.list().length > 1 || c.allowWorkspaceRoots.length > 0) tags.push('multi_workspace_sessions');
  return tags;
}

/** docs/modules.md: where a workspace's module socket listens; local workspaces only. */
function moduleSocketOf(core: Core, workspaceId: string): { moduleSocket?: string } {
  const path = core.messaging.socketPath(workspaceId);
  return path === null ? {} : { moduleSocket: path };
}

export function capabilities(core: Core, modules: readonly HttpModule[]): Record<string, unknown> {
  const features = new Set<string>();
  for (const m of modules) for (const f of m.features(core)) features.add(f);
  for (const f of conditionalFeatures(core)) features.add(f);
  return {
    v: 1,
    protocolVersions: { current: 'v1', supported: ['v1'] },
    berthVersion: packageVersion(),
    mode: 'berth',
    features: [...features],
    // External agents are picked like model services (issue 12): by id, or by a model id `<agentId>/<modelId>`.
    modelServices: [...core.models.ids(), ...core.agents.ids()],
    agents: core.agents.models().map(({ agentId, models }) => ({ id: agentId, default: agentId === core.agents.defaultAgent, models })),
    workspaceCwd: core.workspaces.primary().root,
    transports: ['rest'],
    policy: { permission: 'first-responder' },
    limits: core.limits,
    // Berth's addition (issue 16): whether agent commands run in a sandbox, and which workspaces have no network.
    commandSandbox: core.confinement,
    workspaces: core.workspaces.list().map((w) => ({
      id: w.id,
      cwd: w.kind === 'local' ? w.root : w.id,
      displayName: w.displayName,
      primary: w.primary,
      trusted: w.trusted,
      removable: false,
      // `kind` is reserved by the contract for live-conversation runtimes; Berth says local/remote here.
      location: w.kind,
      // Berth's addition (issue 13): whether a remote workspace's owner is connected now.
      ...(w.kind === 'remote' ? { channel: core.channels.of(w.id) } : {}),
      ...moduleSocketOf(core, w.id),
    })),
  };
}

/** `modules` is read on each request so the list may be assembled after this module. */
export const createDiscoveryModule = (modules: () => readonly HttpModule[]): HttpModule => ({
  name: 'discovery',
  features: () => ['health', 'capabilities'],
  register(app, core) {
    app.get('/health', async (request, reply): Promise<HealthResponse> => {
      const query = request.query as Record<string, string | undefined>;
      // Readiness is checked only where probes were registered (cluster mode, docs/cluster-leases.md); 503 tells a load balancer to look elsewhere.
      const readiness = await core.health.readiness();
      if (readiness && !readiness.ready) reply.code(503);
      const status: HealthResponse = readiness
        ? { status: readiness.ready ? 'ok' : 'degraded', ...(readiness.reason ? { reason: readiness.reason } : {}), readiness: readiness.checks }
        : { status: 'ok' };
      if (!wantsDeep(query)) return status;
      return { ...core.health.snapshot(), ...status, workspaceCount: core.workspaces.list().length };
    });
    app.get('/capabilities', async () => capabilities(core, modules()));
  },
});
