export { createGatewayHost, type GatewayHost, type GatewayHostDeps } from './gateway-host.js';
export { ChannelHub, type ChannelHubDeps, type HubLimits, type RemoteCallRequest } from './hub.js';
export { remoteWorkspaceTools } from './remote-tools.js';
