import type { Config } from './config.js';
import * as L from './limits.js';

/**
 * `/capabilities` `limits`: every bound in force, named as the SDK expects
 * where it has a name (sdk-client-notes §2.2) and otherwise after the limit.
 */
export function advertisedLimits(config: Config): Record<string, unknown> {
  return {
    maxRegisteredWorkspaces: config.workspaces.length + config.remoteWorkspaces.length,
    maxPendingPromptsPerSession: config.maxPendingPromptsPerSession,
    maxSessionsPerWorkspace: null,
    maxTotalSessions: config.maxSessions,
    sessionRestoreTimeoutMs: L.SESSION_RESTORE_TIMEOUT_MS,
    maxRequestBodyBytes: L.MAX_BODY_BYTES,
    maxJsonDepth: L.MAX_JSON_DEPTH,
    httpRequestTimeoutMs: config.httpLimits.requestTimeoutMs,
    httpHeadersTimeoutMs: config.httpLimits.headersTimeoutMs,
    httpIdleTimeoutMs: config.httpLimits.idleTimeoutMs,
    httpKeepAliveTimeoutMs: config.httpLimits.keepAliveTimeoutMs,
    maxHttpConnections: config.httpLimits.maxConnections,
    maxHttpConnectionsPerAddress: config.httpLimits.maxConnectionsPerAddress,
    eventRingSize: config.eventRingSize,
    maxSubscribersPerSession: L.MAX_SUBSCRIBERS_PER_SESSION,
    defaultMaxQueued: L.DEFAULT_MAX_QUEUED,
    minMaxQueued: L.MIN_MAX_QUEUED,
    maxMaxQueued: L.MAX_MAX_QUEUED,
    maxQueuedBytes: L.MAX_QUEUED_BYTES,
    maxReplayBytes: L.MAX_REPLAY_BYTES,
    sseHeartbeatMs: L.SSE_HEARTBEAT_MS,
    maxPendingPermissionsPerSession: L.MAX_PENDING_PERMISSIONS,
    maxClientsPerSession: L.MAX_CLIENTS_PER_SESSION,
    permissionTimeoutMs: config.permissionTimeoutMs,
    promptDeadlineMs: config.promptDeadlineMs,
    sessionIdleTimeoutMs: config.sessionIdleTimeoutMs,
    maxTurnIterations: config.maxTurnIterations,
    maxTranscriptPageRecords: L.MAX_TRANSCRIPT_LIMIT,
    maxTranscriptPageBytes: L.MAX_TRANSCRIPT_PAGE_BYTES,
    maxListEntries: L.MAX_LIST_ENTRIES,
    maxFileWindowBytes: L.MAX_FILE_WINDOW_BYTES,
    maxFileLines: L.MAX_FILE_LINES,
    maxFileScanBytes: L.MAX_FILE_SCAN_BYTES,
    maxGlobResults: L.MAX_GLOB_RESULTS,
    maxGatewayReadBytes: L.MAX_GATEWAY_READ_BYTES,
    maxCommandOutputBytes: L.MAX_COMMAND_OUTPUT_BYTES,
    maxBatchCalls: L.MAX_BATCH_CALLS,
    maxEvidenceDelayMs: L.MAX_EVIDENCE_DELAY_MS,
    compressionThresholdBytes: L.COMPRESSION_THRESHOLD_BYTES,
    channels: config.maxChannels,
    channelsPerToken: config.maxChannelsPerToken,
    inFlightCallsPerWorkspace: config.maxInflightCallsPerWorkspace,
    frameBytes: config.maxFrameBytes,
    channelWaitMs: config.channelWaitMs,
    maxApplications: L.MAX_APP_CONNECTIONS,
    applicationQueryTimeoutMs: L.APP_QUERY_TIMEOUT_MS,
    applicationCallTimeoutMs: L.APP_CALL_TIMEOUT_MS,
    maxApplicationProtocolErrors: L.MAX_APP_PROTOCOL_ERRORS,
    maxCatalogTools: L.MAX_CATALOG_TOOLS,
    moduleMostLineBytes: L.MODULE_MOST_LINE,
    moduleMostTextChars: L.MODULE_MOST_TEXT,
    moduleMaxHops: L.MODULE_MAX_HOPS,
    moduleHopWindowMs: L.MODULE_HOP_WINDOW_MS,
    modulePaceMax: L.MODULE_PACE_MAX,
    modulePaceWindowMs: L.MODULE_PACE_WINDOW_MS,
    moduleReadTimeoutMs: L.MODULE_READ_TIMEOUT_MS,
    moduleMaxConnections: L.MODULE_MAX_CONNECTIONS,
    // `--rate-limit` tiers, only when configured (spec §6.1): `{prompt: {max, windowMs}, …}`.
    ...(config.rateLimits.length > 0
      ? { rateLimits: Object.fromEntries(config.rateLimits.map((t) => [t.tier, { max: t.max, windowMs: t.windowMs }])) }
      : {}),
  };
}
