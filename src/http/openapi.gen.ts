/* Generated from contract/openapi.json by scripts/gen-contract-types.mjs. Do not edit by hand. */

/**
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "RestoredSession".
 */
export type RestoredSession = Session & {
  state: SessionState;
  artifactWarnings?: string[];
  partial?: true;
  replayError?: string;
  compactedReplay?: EventEnvelope[];
  liveJournal?: EventEnvelope[];
  historyHasMore?: boolean;
  historyAnchorRecordId?: string;
  lastEventId?: number;
  eventEpoch?: string;
  [k: string]: unknown;
};

export interface OpenApiContract {
  EmptyObject?: EmptyObject;
  Error?: Error;
  HealthResponse?: HealthResponse;
  WorkspaceCapability?: WorkspaceCapability;
  Capabilities?: Capabilities;
  WorktreeRequest?: WorktreeRequest;
  CreateSessionRequest?: CreateSessionRequest;
  Session?: Session;
  RestoreSessionRequest?: RestoreSessionRequest;
  ResumeSessionRequest?: ResumeSessionRequest;
  SessionState?: SessionState;
  RestoredSession?: RestoredSession;
  Heartbeat?: Heartbeat;
  SessionMetadataRequest?: SessionMetadataRequest;
  SessionPrInput?: SessionPrInput;
  SessionIssue?: SessionIssue;
  SessionPr?: SessionPr;
  SessionMetadataResult?: SessionMetadataResult;
  SessionModelRequest?: SessionModelRequest;
  SessionModelResult?: SessionModelResult;
  PendingInteraction?: PendingInteraction;
  SessionSummary?: SessionSummary;
  PromptContentBlock?: PromptContentBlock;
  PromptRequest?: PromptRequest;
  PromptAccepted?: PromptAccepted;
  EventEnvelope?: EventEnvelope;
  TranscriptPage?: TranscriptPage;
  SessionContext?: SessionContext;
  PendingPrompt?: PendingPrompt;
  PendingPrompts?: PendingPrompts;
  PermissionResponse?: PermissionResponse;
  StatusCell?: StatusCell;
  WorkspaceTool?: WorkspaceTool;
  WorkspaceTools?: WorkspaceTools;
  WorkspaceFile?: WorkspaceFile;
  WorkspaceFileBytes?: WorkspaceFileBytes;
  WorkspaceStat?: WorkspaceStat;
  WorkspaceList?: WorkspaceList;
  WorkspaceGlob?: WorkspaceGlob;
  UsageTotals?: UsageTotals;
  SessionApprovalModeRequest?: SessionApprovalModeRequest;
  SessionApprovalModeResult?: SessionApprovalModeResult;
  SessionRewindRequest?: SessionRewindRequest;
  SessionRewindResult?: SessionRewindResult;
}
/**
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "EmptyObject".
 */
export interface EmptyObject {}
/**
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "Error".
 */
export interface Error {
  error?: string;
  code?: string;
  errorKind?: string;
  status?: number;
  retryable?: boolean;
  retryAfterSeconds?: number;
  sessionId?: string;
  requestId?: string;
  reason?: string;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "HealthResponse".
 */
export interface HealthResponse {
  status: 'ok' | 'degraded';
  reason?: string;
  workspaceCount?: number;
  sessions?: number;
  pendingPermissions?: number;
  activePrompts?: number;
  activeWork?: boolean;
  activeWorkReporting?: 'full' | 'partial' | 'none';
  activeWorkStaleMs?: number;
  connectedClients?: number;
  channelAlive?: boolean;
  lastActivityAt?: string | null;
  idleSinceMs?: number | null;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "WorkspaceCapability".
 */
export interface WorkspaceCapability {
  id: string;
  cwd: string;
  displayName?: string;
  primary: boolean;
  trusted: boolean;
  removable?: boolean;
  workflowsEnabled?: boolean;
  /**
   * Present only when the workspace is backed by a live-conversation runtime.
   */
  kind?: 'live';
  [k: string]: unknown;
}
/**
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "Capabilities".
 */
export interface Capabilities {
  v: 1;
  protocolVersions?: {
    current: string;
    supported: string[];
  };
  qwenCodeVersion?: string;
  mode: string;
  features: string[];
  limits?: {
    [k: string]: unknown;
  };
  modelServices: string[];
  transports?: string[];
  workspaceCwd?: string;
  workspaces?: WorkspaceCapability[];
  policy?: {
    [k: string]: unknown;
  };
  /**
   * Live-session state poll interval in milliseconds. Defaults to 5000; override with QWEN_SESSION_LIVE_STATE_POLL_INTERVAL_MS.
   */
  sessionLiveStatePollIntervalMs?: number;
  /**
   * Prompt and UI language codes the daemon accepts, plus auto.
   */
  supportedLanguages?: string[];
  [k: string]: unknown;
}
/**
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "WorktreeRequest".
 */
export interface WorktreeRequest {
  slug?: string;
}
/**
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "CreateSessionRequest".
 */
export interface CreateSessionRequest {
  cwd?: string;
  /**
   * Caller-supplied session id. Only RFC 4122 UUID versions 1-5 are admitted; RFC 9562 v7/v8 ids are rejected with 400 invalid_session_id.
   */
  sessionId?: string;
  modelServiceId?: string;
  sessionScope?: 'single' | 'thread';
  approvalMode?: string;
  sourceType?: string;
  sourceId?: string;
  worktree?: WorktreeRequest;
  branch?: {
    name: string;
  };
}
/**
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "Session".
 */
export interface Session {
  sessionId: string;
  workspaceCwd: string;
  currentCwd?: string;
  attached: boolean;
  clientId?: string;
  createdAt?: string;
  hasActivePrompt?: boolean;
  sourceType?: string;
  sourceId?: string;
  sourcePersisted?: boolean;
  modelApplied?: boolean;
  worktree?: {
    slug: string;
    path: string;
    branch: string;
  };
  worktreeState?: 'persisted-v1';
  branch?: {
    name: string;
    baseBranch: string;
  };
  [k: string]: unknown;
}
/**
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "RestoreSessionRequest".
 */
export interface RestoreSessionRequest {
  cwd?: string;
  approvalMode?: string;
  historyPageSize?: number;
  liveReplayMode?: 'full' | 'summary';
  sourceType?: string;
  sourceId?: string;
}
/**
 * Resume request. historyPageSize is not parsed on this route, and liveReplayMode is not passed to the bridge resume call (only the legacy-standalone compatibility restore sees it), so neither field is published here.
 *
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "ResumeSessionRequest".
 */
export interface ResumeSessionRequest {
  cwd?: string;
  approvalMode?: string;
  sourceType?: string;
  sourceId?: string;
}
/**
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "SessionState".
 */
export interface SessionState {
  _meta?: {
    [k: string]: unknown;
  } | null;
  models?: unknown;
  modes?: unknown;
  configOptions?: unknown[] | null;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "EventEnvelope".
 */
export interface EventEnvelope {
  id?: number;
  v: 1;
  type: string;
  data: unknown;
  originatorClientId?: string;
  _meta?: {
    [k: string]: unknown;
  };
  [k: string]: unknown;
}
/**
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "Heartbeat".
 */
export interface Heartbeat {
  sessionId: string;
  clientId?: string;
  lastSeenAt: number;
}
/**
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "SessionMetadataRequest".
 */
export interface SessionMetadataRequest {
  /**
   * The daemon first truncates values longer than 256 UTF-16 code units; the cut is not surrogate-pair aware, so a name ending in a non-BMP character can lose a lone surrogate half. The truncated value is rejected with 400 invalid_metadata when it is empty, whitespace-only, or contains a C0 control character or DEL. Omit the field to leave the name unchanged.
   */
  displayName?: string;
  pr?: SessionPrInput;
}
/**
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "SessionPrInput".
 */
export interface SessionPrInput {
  number: number;
  url: string;
  state?: 'open' | 'merged' | 'closed';
}
/**
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "SessionIssue".
 */
export interface SessionIssue {
  number: number;
  url: string;
  state?: 'open' | 'completed' | 'not_planned';
}
/**
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "SessionPr".
 */
export interface SessionPr {
  number: number;
  url: string;
  state?: 'open' | 'merged' | 'closed';
  /**
   * @maxItems 10
   */
  issues?:
    | []
    | [SessionIssue]
    | [SessionIssue, SessionIssue]
    | [SessionIssue, SessionIssue, SessionIssue]
    | [SessionIssue, SessionIssue, SessionIssue, SessionIssue]
    | [SessionIssue, SessionIssue, SessionIssue, SessionIssue, SessionIssue]
    | [SessionIssue, SessionIssue, SessionIssue, SessionIssue, SessionIssue, SessionIssue]
    | [SessionIssue, SessionIssue, SessionIssue, SessionIssue, SessionIssue, SessionIssue, SessionIssue]
    | [SessionIssue, SessionIssue, SessionIssue, SessionIssue, SessionIssue, SessionIssue, SessionIssue, SessionIssue]
    | [
        SessionIssue,
        SessionIssue,
        SessionIssue,
        SessionIssue,
        SessionIssue,
        SessionIssue,
        SessionIssue,
        SessionIssue,
        SessionIssue
      ]
    | [
        SessionIssue,
        SessionIssue,
        SessionIssue,
        SessionIssue,
        SessionIssue,
        SessionIssue,
        SessionIssue,
        SessionIssue,
        SessionIssue,
        SessionIssue
      ];
}
/**
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "SessionMetadataResult".
 */
export interface SessionMetadataResult {
  sessionId: string;
  displayName?: string;
  prs?: SessionPr[];
}
/**
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "SessionModelRequest".
 */
export interface SessionModelRequest {
  modelId: string;
}
/**
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "SessionModelResult".
 */
export interface SessionModelResult {
  _meta?: {
    [k: string]: unknown;
  } | null;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "PendingInteraction".
 */
export interface PendingInteraction {
  requestId: string;
  kind: 'permission' | 'user_question';
  createdAt: string;
  title?: string;
  action?: {
    type?: string;
    title?: string;
    content?: unknown;
    locations?: unknown;
    input?: unknown;
    [k: string]: unknown;
  };
  questions?: {
    answerKey: string;
    header?: string;
    question?: string;
    multiSelect?: boolean;
    options?: {
      label?: string;
      description?: string;
      [k: string]: unknown;
    }[];
    [k: string]: unknown;
  }[];
  options?: unknown[];
  [k: string]: unknown;
}
/**
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "SessionSummary".
 */
export interface SessionSummary {
  sessionId: string;
  workspaceCwd: string;
  createdAt: string;
  updatedAt?: string;
  displayName?: string;
  parentSessionId?: string;
  sourceType?: string;
  sourceId?: string;
  clientCount: number;
  hasActivePrompt: boolean;
  activeWorkState?: 'active' | 'idle' | 'unknown' | 'unsupported';
  isWaitingForPermission?: boolean;
  isWaitingForUserQuestion?: boolean;
  pendingInteractionCount?: number;
  hasTurnError?: boolean;
  turnError?: {
    message: string;
    code?: string;
    errorKind?: string;
  };
  pendingInteractions?: PendingInteraction[];
  worktree?: {
    slug: string;
    path: string;
    branch: string;
  };
  branch?: {
    name: string;
    baseBranch: string;
  };
  prs?: SessionPr[];
  /**
   * Berth: token and cost totals of the session and its last finished turn (docs/client-api.md §8.10).
   */
  usage?: {
    session: UsageTotals;
    lastTurn?: UsageTotals;
  };
  [k: string]: unknown;
}
/**
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "UsageTotals".
 */
export interface UsageTotals {
  requests: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  thoughtTokens: number;
  cachedReadTokens: number;
  cost?: {
    amount: number;
    currency: string;
  };
}
/**
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "PromptContentBlock".
 */
export interface PromptContentBlock {
  type: string;
  text?: string;
  attachmentId?: string;
  mimeType?: string;
  size?: number;
  data?: string;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "PromptRequest".
 */
export interface PromptRequest {
  /**
   * @minItems 1
   */
  prompt: [PromptContentBlock, ...PromptContentBlock[]];
  /**
   * Ignored unless /capabilities advertises prompt_absolute_deadline (daemon booted with --prompt-deadline-ms). The effective deadline is min(server flag, this value); a request can shorten it, never extend it.
   */
  deadlineMs?: number;
  /**
   * Channel delivery target. Only this shape is accepted; any other object, unknown key, or non-blank-string violation is rejected with 400 channel_delivery_invalid.
   */
  delivery?: {
    kind: 'channel';
    target: {
      channelName: string;
      type: 'user' | 'chat';
      id: string;
    };
  };
  _meta?: {
    [k: string]: unknown;
  } | null;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "PromptAccepted".
 */
export interface PromptAccepted {
  promptId: string;
  lastEventId: number;
  eventEpoch?: string;
}
/**
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "TranscriptPage".
 */
export interface TranscriptPage {
  v: 1;
  sessionId: string;
  events: EventEnvelope[];
  nextCursor?: string;
  hasMore: boolean;
  startTime?: string;
  lastUpdated?: string;
  partial?: true;
  replayError?: string;
  targetRecordId?: string;
  hasOlder?: boolean;
}
/**
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "SessionContext".
 */
export interface SessionContext {
  v: 1;
  sessionId: string;
  workspaceCwd: string;
  state: SessionState;
}
/**
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "PendingPrompt".
 */
export interface PendingPrompt {
  promptId: string;
  text: string;
  content?: PromptContentBlock[];
  queuedAt: number;
  state: 'queued' | 'running';
  originatorClientId?: string;
}
/**
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "PendingPrompts".
 */
export interface PendingPrompts {
  pendingPrompts: PendingPrompt[];
}
/**
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "PermissionResponse".
 */
export interface PermissionResponse {
  outcome:
    | {
        outcome: 'cancelled';
      }
    | {
        outcome: 'selected';
        optionId: string;
      };
  expectedPlanExecutionMode?: string;
  answers?: {
    [k: string]: string;
  };
  [k: string]: unknown;
}
/**
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "StatusCell".
 */
export interface StatusCell {
  kind: string;
  status: 'ok' | 'warning' | 'error' | 'disabled' | 'not_started' | 'unknown';
  error?: string;
  errorKind?: string;
  hint?: string;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "WorkspaceTool".
 */
export interface WorkspaceTool {
  name: string;
  displayName?: string;
  description?: string;
  enabled: boolean;
}
/**
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "WorkspaceTools".
 */
export interface WorkspaceTools {
  v: 1;
  workspaceCwd: string;
  initialized: true;
  acpChannelLive: boolean;
  tools: WorkspaceTool[];
  errors?: StatusCell[];
}
/**
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "WorkspaceFile".
 */
export interface WorkspaceFile {
  kind: 'file';
  path: string;
  content: string;
  encoding: string;
  bom: boolean;
  lineEnding: 'crlf' | 'lf';
  sizeBytes: number;
  returnedBytes: number;
  truncated: boolean;
  hash?: string;
  matchedIgnore: 'file' | 'directory' | null;
  originalLineCount: number | null;
  nextCursor?: string | null;
  hasMore?: boolean;
}
/**
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "WorkspaceFileBytes".
 */
export interface WorkspaceFileBytes {
  kind: 'file_bytes';
  path: string;
  offset: number;
  sizeBytes: number;
  returnedBytes: number;
  truncated: boolean;
  contentBase64: string;
  hash?: string;
}
/**
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "WorkspaceStat".
 */
export interface WorkspaceStat {
  kind: 'stat';
  path: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
  sizeBytes: number;
  modifiedMs: number;
}
/**
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "WorkspaceList".
 */
export interface WorkspaceList {
  kind: 'list';
  path: string;
  entries: {
    name: string;
    kind: 'file' | 'directory' | 'symlink' | 'other';
    ignored: boolean;
  }[];
  truncated: boolean;
  matchedIgnore: null;
}
/**
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "WorkspaceGlob".
 */
export interface WorkspaceGlob {
  kind: 'glob';
  pattern: string;
  cwd: string;
  matches: string[];
  count: number;
  truncated: boolean;
  durationMs: number;
}
/**
 * Berth: body of POST /session/{id}/approval-mode, qwen serve's route outside the 25 operations (docs/client-api.md §5.11).
 *
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "SessionApprovalModeRequest".
 */
export interface SessionApprovalModeRequest {
  mode: 'plan' | 'default' | 'auto-edit' | 'auto' | 'yolo';
  planMode?: string;
  persist?: boolean;
}
/**
 * Berth: answer of POST /session/{id}/approval-mode, as qwen serve's DaemonApprovalModeResult.
 *
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "SessionApprovalModeResult".
 */
export interface SessionApprovalModeResult {
  sessionId: string;
  mode: string;
  previous: string;
  persisted: boolean;
}
/**
 * Berth: body of POST /session/{id}/rewind, qwen serve's route outside the 25 operations (docs/client-api.md §5.13). Exactly one of promptId (undo that prompt and every later turn) and checkpointUuid (a turn_complete branchPoint's checkpointUuid or assistantRecordUuid: undo every turn after that one).
 *
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "SessionRewindRequest".
 */
export interface SessionRewindRequest {
  promptId?: string;
  checkpointUuid?: string;
  rewindFiles?: boolean;
}
/**
 * Berth: answer of POST /session/{id}/rewind, as qwen serve's DaemonRewindResult.
 *
 * This interface was referenced by `OpenApiContract`'s JSON-Schema
 * via the `definition` "SessionRewindResult".
 */
export interface SessionRewindResult {
  rewound: boolean;
  targetTurnIndex: number;
  filesChanged: string[];
  filesFailed: string[];
}
