import type { Config } from '../config/config.js';
import { DEFAULT_MAX_QUEUED, MAX_MAX_QUEUED, MAX_QUEUED_BYTES, MAX_REPLAY_BYTES, MAX_SUBSCRIBERS_PER_SESSION, MIN_MAX_QUEUED } from '../events/limits.js';
import { MAX_BODY_BYTES, SSE_HEARTBEAT_MS } from '../http/limits.js';
import { MODULE_HOP_WINDOW_MS, MODULE_MAX_HOPS, MODULE_PACE_MAX, MODULE_PACE_WINDOW_MS } from '../messaging/limits.js';
import { MODULE_MAX_CONNECTIONS, MODULE_READ_TIMEOUT_MS } from '../modules/limits.js';
import { COMPRESSION_THRESHOLD_BYTES, MAX_JSON_DEPTH, MAX_BATCH_CALLS, MAX_CATALOG_TOOLS, MAX_EVIDENCE_DELAY_MS, MODULE_MOST_LINE, MODULE_MOST_TEXT } from '../protocol/limits.js';
import { DEFAULT_SESSION_LIST_PAGE, MAX_CLIENTS_PER_SESSION, MAX_PENDING_PERMISSIONS, MAX_SESSION_LIST_PAGE, SESSION_RESTORE_TIMEOUT_MS } from '../sessions/limits.js';
import { APP_CALL_TIMEOUT_MS, APP_QUERY_TIMEOUT_MS, MAX_APP_CONNECTIONS, MAX_APP_PROTOCOL_ERRORS } from '../toolproto/limits.js';
import { CHECKPOINT_BUDGET_BYTES, MAX_COMMAND_OUTPUT_BYTES, MAX_GATEWAY_READ_BYTES } from '../tools/limits.js';
import { MAX_TRANSCRIPT_LIMIT, MAX_TRANSCRIPT_PAGE_BYTES } from '../transcript/limits.js';
import { MAX_FILE_LINES, MAX_FILE_SCAN_BYTES, MAX_FILE_WINDOW_BYTES, MAX_GLOB_RESULTS, MAX_LIST_ENTRIES } from '../workspace/limits.js';

/**
 * `/capabilities` `limits`: every bound in force, named as the SDK expects
 * where it has a name and otherwise after the limit (docs/client-api.md §3.1).
 */
export function advertisedLimits(config: Config): Record<string, unknown> {
  return {
    maxRegisteredWorkspaces: config.workspaces.length + config.remoteWorkspaces.length,
    maxPendingPromptsPerSession: config.maxPendingPromptsPerSession,
    maxSessionsPerWorkspace: null,
    maxTotalSessions: config.maxSessions,
    sessionRestoreTimeoutMs: SESSION_RESTORE_TIMEOUT_MS,
    maxRequestBodyBytes: MAX_BODY_BYTES,
    maxJsonDepth: MAX_JSON_DEPTH,
    httpRequestTimeoutMs: config.httpLimits.requestTimeoutMs,
    httpHeadersTimeoutMs: config.httpLimits.headersTimeoutMs,
    httpIdleTimeoutMs: config.httpLimits.idleTimeoutMs,
    httpKeepAliveTimeoutMs: config.httpLimits.keepAliveTimeoutMs,
    maxHttpConnections: config.httpLimits.maxConnections,
    maxHttpConnectionsPerAddress: config.httpLimits.maxConnectionsPerAddress,
    eventRingSize: config.eventRingSize,
    maxSubscribersPerSession: MAX_SUBSCRIBERS_PER_SESSION,
    defaultMaxQueued: DEFAULT_MAX_QUEUED,
    minMaxQueued: MIN_MAX_QUEUED,
    maxMaxQueued: MAX_MAX_QUEUED,
    maxQueuedBytes: MAX_QUEUED_BYTES,
    maxReplayBytes: MAX_REPLAY_BYTES,
    sseHeartbeatMs: SSE_HEARTBEAT_MS,
    maxPendingPermissionsPerSession: MAX_PENDING_PERMISSIONS,
    maxClientsPerSession: MAX_CLIENTS_PER_SESSION,
    permissionTimeoutMs: config.permissionTimeoutMs,
    promptDeadlineMs: config.promptDeadlineMs,
    sessionIdleTimeoutMs: config.sessionIdleTimeoutMs,
    maxTurnIterations: config.maxTurnIterations,
    defaultSessionListPage: DEFAULT_SESSION_LIST_PAGE,
    maxSessionListPage: MAX_SESSION_LIST_PAGE,
    maxTranscriptPageRecords: MAX_TRANSCRIPT_LIMIT,
    maxTranscriptPageBytes: MAX_TRANSCRIPT_PAGE_BYTES,
    maxListEntries: MAX_LIST_ENTRIES,
    maxFileWindowBytes: MAX_FILE_WINDOW_BYTES,
    maxFileLines: MAX_FILE_LINES,
    maxFileScanBytes: MAX_FILE_SCAN_BYTES,
    maxGlobResults: MAX_GLOB_RESULTS,
    maxGatewayReadBytes: MAX_GATEWAY_READ_BYTES,
    maxCommandOutputBytes: MAX_COMMAND_OUTPUT_BYTES,
    checkpointBudgetBytesPerSession: CHECKPOINT_BUDGET_BYTES,
    maxBatchCalls: MAX_BATCH_CALLS,
    maxEvidenceDelayMs: MAX_EVIDENCE_DELAY_MS,
    compressionThresholdBytes: COMPRESSION_THRESHOLD_BYTES,
    channels: config.maxChannels,
    channelsPerToken: config.maxChannelsPerToken,
    inFlightCallsPerWorkspace: config.maxInflightCallsPerWorkspace,
    frameBytes: config.maxFrameBytes,
    channelWaitMs: config.channelWaitMs,
    maxApplications: MAX_APP_CONNECTIONS,
    applicationQueryTimeoutMs: APP_QUERY_TIMEOUT_MS,
    applicationCallTimeoutMs: APP_CALL_TIMEOUT_MS,
    maxApplicationProtocolErrors: MAX_APP_PROTOCOL_ERRORS,
    maxCatalogTools: MAX_CATALOG_TOOLS,
    moduleMostLineBytes: MODULE_MOST_LINE,
    moduleMostTextChars: MODULE_MOST_TEXT,
    moduleMaxHops: MODULE_MAX_HOPS,
    moduleHopWindowMs: MODULE_HOP_WINDOW_MS,
    modulePaceMax: MODULE_PACE_MAX,
    modulePaceWindowMs: MODULE_PACE_WINDOW_MS,
    moduleReadTimeoutMs: MODULE_READ_TIMEOUT_MS,
    moduleMaxConnections: MODULE_MAX_CONNECTIONS,
    agentStartTimeoutMs: config.agents.startTimeoutMs,
    agentIdleMs: config.agents.idleMs,
    agentMaxMessageBytes: config.agents.maxMessageBytes,
    agentMemoryMb: config.agents.memoryMb,
    // `--rate-limit` tiers, only when configured (docs/client-api.md §6.1): `{prompt: {max, windowMs}, …}`.
    ...(config.rateLimits.length > 0
      ? { rateLimits: Object.fromEntries(config.rateLimits.map((t) => [t.tier, { max: t.max, windowMs: t.windowMs }])) }
      : {}),
  };
}
