import type { Core } from '../../core.js';
import type { UpgradeRoute } from '../../net/upgrade.js';
import type { GatewayCallRepository } from './call-journal.js';
import type { ToolDefinition } from '../../tools/types.js';
import { channelUpgradeRoute } from './channel-route.js';
import { ChannelHub } from './hub.js';
import { remoteWorkspaceTools } from './remote-tools.js';

/** B's gateway: the hub, the remote workspaces' tool host on the Core's tool layer, and the channel endpoint. */
export interface GatewayHost {
  readonly hub: ChannelHub;
  /** The WebSocket upgrade route for `upgradeRoutes` in daemon.ts. */
  readonly route: UpgradeRoute;
  shutdown(): Promise<void>;
}

/**
 * Builds B's side of the gateway channel (docs/gateway.md) on a core: remote workspaces get the gateway
 * tools (`workspaceTools`: the local builtins' definitions) running through
 * their channels, `/health?deep=1` gets the channel counters.
 */
export interface GatewayHostDeps {
  /** The tools a remote workspace offers: the local builtins' definitions, run on the owner's side. */
  readonly workspaceTools: readonly ToolDefinition[];
  /** B's journal of outgoing calls (the store's, handed in by the wiring). */
  readonly journal: GatewayCallRepository;
  /** The port actually bound, for the Host check. */
  readonly boundPort: () => number;
  /** In a cluster, another node may carry on this node's sent calls (ChannelHubDeps.otherNodesAdopt). */
  readonly clustered?: boolean;
}

export function createGatewayHost(core: Core, deps: GatewayHostDeps): GatewayHost {
  const { workspaceTools, journal, boundPort } = deps;
  const { config } = core;
  const intentions = new Map<string, string>();
  for (const ws of core.workspaces.list()) {
    if (ws.kind === 'remote') intentions.set(ws.id, config.remoteIntentions[ws.id] ?? ws.id);
  }
  const hub = new ChannelHub({
    limits: {
      maxChannels: config.maxChannels,
      maxChannelsPerToken: config.maxChannelsPerToken,
      maxInflightCallsPerWorkspace: config.maxInflightCallsPerWorkspace,
      maxFrameBytes: config.maxFrameBytes,
      channelWaitMs: config.channelWaitMs,
    },
    intentions,
    journal,
    clock: core.clock,
    log: core.log,
    otherNodesAdopt: deps.clustered === true,
  });
  core.tools.setHostTools('remote', remoteWorkspaceTools(workspaceTools, hub));
  core.health.contribute(() => hub.counters());
  core.channels.setReader((workspaceId) => hub.stateOf(workspaceId));
  const route = channelUpgradeRoute({
    security: { config, tokens: core.tokens, port: boundPort },
    hub,
    log: core.log,
    maxFrameBytes: config.maxFrameBytes,
  });
  return { hub, route, shutdown: () => hub.shutdown() };
}
