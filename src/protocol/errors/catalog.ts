/**
 * The one catalogue of Berth error codes.
 *
 * Every refusal anywhere in the daemon is a `BerthError` carrying one of these
 * codes. Faces map it to the wire in exactly one place each: HTTP in
 * `src/http/errors.ts`, protocol frames in their own encoders. Codes that the
 * OpenAPI contract (`contract/openapi.json`, `Error.code` / `errorKind`) or
 * docs/client-api.md §13 name are kept verbatim, since clients
 * branch on them; Berth-only codes follow the same snake_case style.
 *
 * `status` is the HTTP status when the error reaches the client API; frame
 * faces ignore it. `errorKind` is set where the contract uses the errorKind
 * style (workspace reads, §11.1) or a closed errorKind (§13.2).
 */
import { spec, type ErrorSpec } from './error-spec.js';
import { WIRE_AND_NODE_ERRORS } from './wire-catalog.js';

export type { ErrorSpec };

export const ERROR_CATALOG = spec({
  // ── request shape (§1, §13.2) ───────────────────────────────────────────
  invalid_json: { status: 400, message: 'Invalid JSON in request body' },
  invalid_request: { status: 400, message: 'The request does not match the contract' },
  request_headers_too_large: { status: 431, message: 'The request line and headers exceed 16 KiB' },
  request_timeout: { status: 408, message: 'The request did not arrive in time', retryable: true },
  body_too_large: { status: 413, message: 'Request body too large' },
  nesting_too_deep: { status: 400, message: 'The JSON value is nested too deeply' },
  route_not_found: { status: 404, message: 'No such route' },
  method_not_allowed: { status: 405, message: 'This path does not answer that method' },

  // ── auth and browser checks (§2) ────────────────────────────────────────
  unauthorized: { status: 401, message: 'Unauthorized' },
  token_required: { status: 401, message: 'This route requires a bearer token' },
  token_scope_denied: { status: 403, message: 'This token is not allowed on this route' },
  cors_denied: { status: 403, message: 'Request denied by CORS policy' },
  invalid_host: { status: 403, message: 'Invalid Host header' },
  local_user_denied: { status: 403, message: 'A daemon without a token serves only the local user it runs as' },
  credentials_in_query: { status: 400, message: 'Credentials are not accepted in the query string' },

  // ── client identity (§2.6) ──────────────────────────────────────────────
  invalid_client_id: { status: 400, message: 'Invalid or unregistered client id' },

  // ── sessions (§5) ───────────────────────────────────────────────────────
  workspace_mismatch: { status: 400, message: 'The requested cwd is not a registered workspace' },
  untrusted_workspace: { status: 403, message: 'The workspace is not trusted' },
  invalid_session_scope: { status: 400, message: 'sessionScope must be "single" or "thread"' },
  invalid_session_id: { status: 400, message: 'Session ids must be RFC 4122 UUIDs of versions 1-5' },
  invalid_approval_mode: { status: 400, message: 'Unknown approval mode' },
  session_id_conflict: { status: 409, message: 'A session with this id already exists' },
  session_not_found: { status: 404, message: 'No such session' },
  session_closing: { status: 404, message: 'The session is closing' },
  session_limit_exceeded: {
    status: 503,
    message: 'Session limit reached',
    retryable: true,
    retryAfterSeconds: 5,
  },
  // Cluster mode (docs/cluster-leases.md): the session runs on another node, or this node is draining.
  session_on_other_node: { status: 503, message: 'The session runs on another node', retryable: true, retryAfterSeconds: 1 },
  node_draining: { status: 503, message: 'This node is shutting down; retry on another node', retryable: true, retryAfterSeconds: 1 },
  invalid_worktree: { status: 400, message: 'A worktree or branch needs a git repository workspace' },
  worktree_failed: { status: 500, message: 'Creating the git worktree or branch failed' },
  invalid_metadata: { status: 400, message: 'Invalid session metadata' },
  invalid_model_id: { status: 400, message: '`modelId` is required and must be a non-empty string' },
  model_not_found: { status: 404, message: 'Unknown model' },
  restore_in_progress: {
    status: 409,
    message: 'Another restore of this session is in progress',
    retryable: true,
    retryAfterSeconds: 1,
  },
  session_conflict: { status: 409, message: 'The session is in a conflicting state' },
  session_restore_timeout: {
    status: 504,
    message: 'Restoring the session timed out',
    errorKind: 'restore_timeout',
    retryable: true,
    retryAfterSeconds: 5,
  },
  // rewind (§5.13)
  invalid_rewind_target: {
    status: 400,
    message: 'The body names the turn to rewind to: exactly one of `promptId` and `checkpointUuid` (a string), and `rewindFiles` is a boolean',
  },
  rewind_target_not_found: { status: 404, message: 'No turn of this session matches the rewind target' },
  rewind_conflict: { status: 409, message: 'Files changed since the turns being undone; nothing was rewound' },
  checkpoint_evicted: { status: 409, message: "The checkpoint budget gave up a file content this rewind needs" },
  checkpoint_unavailable: { status: 409, message: 'No checkpoint could be kept of a file this rewind needs' },
  invalid_live_replay_mode: { status: 400, message: 'liveReplayMode must be "full" or "summary"' },
  invalid_compacted_replay_mode: {
    status: 400,
    message: 'compactedReplayMode must be "full" or "summary"',
  },

  // ── prompts (§6) ────────────────────────────────────────────────────────
  invalid_prompt: {
    status: 400,
    message: '`prompt` is required and must be a non-empty array of content blocks',
  },
  invalid_deadline_ms: { status: 400, message: 'deadlineMs must be a positive integer' },
  invalid_event_detail_mode: { status: 400, message: 'eventDetailMode must be "full" or "summary"' },
  channel_delivery_invalid: { status: 400, message: 'Invalid prompt delivery target' },
  prompt_queue_full: {
    status: 503,
    message: 'The prompt queue of this session is full',
    retryable: true,
    retryAfterSeconds: 5,
  },
  rate_limit_exceeded: { status: 429, message: 'Rate limit exceeded', retryable: true },
  session_busy: { status: 409, message: 'The session cannot accept this now', retryable: true, retryAfterSeconds: 5 },
  prompt_not_found: { status: 404, message: 'No queued or running prompt of this session has this id' },
  // turn_error codes (in-band, §6.1 step 7)
  prompt_deadline_exceeded: {
    status: 504,
    message: 'The prompt deadline passed',
    errorKind: 'prompt_deadline_exceeded',
  },
  session_closed: { status: 410, message: 'The session was closed' },
  daemon_shutdown: { status: 503, message: 'The daemon is shutting down', retryable: true },
  model_not_configured: {
    status: 503,
    message: 'No model is configured',
    errorKind: 'invalid_config',
  },
  // ── external agents (issue 12) ──
  init_timeout: { status: 504, message: 'The agent did not start in time', errorKind: 'init_timeout', retryable: true, retryAfterSeconds: 5 },
  agent_unavailable: { status: 503, message: 'The agent cannot be started' },
  agent_memory_exhausted: { status: 503, message: 'Agent processes use their whole memory budget', retryable: true, retryAfterSeconds: 30 },
  agent_exited: { status: 502, message: 'The agent process exited', errorKind: 'agent_exited' },
  agent_protocol_error: { status: 502, message: 'The agent broke the protocol and was stopped', errorKind: 'agent_protocol_error' },
  agent_error: { status: 502, message: 'The agent answered with an error', errorKind: 'agent_error' },
  model_error: { status: 502, message: 'The model request failed', errorKind: 'model_stream_interrupted' },

  // ── events (§7) ─────────────────────────────────────────────────────────
  invalid_max_queued: { status: 400, message: 'maxQueued must be an integer from 16 to 2048' },
  subscriber_limit_exceeded: {
    status: 429,
    message: 'EventBus subscriber limit reached',
    retryable: true,
    retryAfterSeconds: 5,
  },
  invalid_event: { status: 500, message: 'An event must have a type without control characters and an object payload' },

  // ── permissions (§9) ────────────────────────────────────────────────────
  invalid_permission_response: {
    status: 400,
    message: '`outcome` must be `{ outcome: "cancelled" }` or `{ outcome: "selected", optionId: string }`',
  },
  invalid_option_id: { status: 400, message: 'The option is not in the set the agent offered' },
  permission_request_not_found: { status: 404, message: 'No pending permission request' },
  permission_forbidden: { status: 403, message: 'This client may not vote on this request' },

  // ── session list (§5.11) ─────────────────────────────────────────────────
  invalid_session_list_limit: { status: 400, message: 'limit must be an integer from 1 to 1000' },
  invalid_session_list_cursor: { status: 400, message: 'The cursor is not one a session list page handed out' },

  // ── transcript and export (§10) ─────────────────────────────────────────
  invalid_transcript_limit: { status: 400, message: 'limit must be an integer from 1 to 500' },
  invalid_transcript_cursor: { status: 400, message: 'Invalid transcript cursor and anchor combination' },
  invalid_turn_anchor: { status: 400, message: 'Unknown or invalid transcript anchor' },
  transcript_snapshot_unavailable: {
    status: 409,
    message: 'The transcript changed under this cursor',
  },
  transcript_page_too_large: { status: 413, message: 'The transcript page exceeds the byte budget' },
  transcript_too_large: { status: 413, message: 'The transcript exceeds the byte budget' },
  invalid_export_format: { status: 400, message: 'Unknown export format' },

  // ── workspace reads (§11, errorKind style) ──────────────────────────────
  parse_error: { status: 400, message: 'Invalid request', errorKind: 'parse_error' },
  path_outside_workspace: {
    status: 400,
    message: 'The path leads outside the workspace',
    errorKind: 'path_outside_workspace',
  },
  symlink_escape: { status: 400, message: 'A symlink leads outside the workspace', errorKind: 'symlink_escape' },
  path_not_found: { status: 404, message: 'Path does not exist', errorKind: 'path_not_found' },
  permission_denied: { status: 403, message: 'Permission denied', errorKind: 'permission_denied' },
  hash_mismatch: { status: 409, message: 'The file changed', errorKind: 'hash_mismatch' },
  file_too_large: { status: 413, message: 'The file is too large for this read', errorKind: 'file_too_large' },
  binary_file: { status: 422, message: 'Binary file', errorKind: 'binary_file' },
  text_not_found: { status: 422, message: 'The text to replace was not found', errorKind: 'text_not_found' },
  ambiguous_text_match: {
    status: 422,
    message: 'The text to replace occurs more than once',
    errorKind: 'ambiguous_text_match',
  },
  not_regular_file: { status: 400, message: 'Not a regular file', errorKind: 'parse_error' },
  name_too_long: {
    status: 400,
    message: 'A name in the path is longer than 255 bytes',
    errorKind: 'parse_error',
  },
  io_error: { status: 503, message: 'Filesystem I/O failure', errorKind: 'io_error', retryable: true },
  storage_full: {
    status: 507,
    message: 'The daemon cannot store this now: its disk is full',
    retryable: true,
    retryAfterSeconds: 30,
  },
  storage_unavailable: {
    status: 503,
    message: 'The daemon cannot store this now',
    retryable: true,
    retryAfterSeconds: 5,
  },
  internal_error: { status: 500, message: 'Internal error', errorKind: 'internal_error' },

  // ── tools (docs/tool-protocol.md tool.error codes, docs/gateway.md results) ─────────────────
  unknown_tool: { status: 404, message: 'Unknown tool' },
  invalid_arguments: { status: 400, message: 'The arguments do not match the tool schema' },
  policy_denied: { status: 403, message: 'The tool policy is above what this caller may run' },
  permission_rejected: { status: 403, message: 'The owner rejected this tool call' },
  tool_unavailable: { status: 503, message: 'The tool is not available now', retryable: true },
  tool_failed: { status: 500, message: 'The tool failed' },
  tool_timeout: { status: 504, message: 'The tool did not answer in time', retryable: true },
  uncertain_effect: {
    status: 409,
    message: 'A previous attempt of this call may have taken effect; it is not run again',
  },
  stale_hash: { status: 409, message: 'The file changed since it was read', errorKind: 'hash_mismatch' },
  file_exists: { status: 409, message: 'The file already exists; supply its SHA-256 to replace it' },
  unknown_command: { status: 404, message: 'Unknown command id' },
  spawn_failed: {
    status: 503,
    message: 'The command could not be started',
    retryable: true,
    retryAfterSeconds: 5,
  },
  command_not_running: { status: 409, message: 'The command is not running' },
  command_limit_exceeded: {
    status: 429,
    message: 'This session already holds the most commands it may keep running',
    retryable: true,
  },
  invalid_page: { status: 400, message: 'The PDF has no such page' },
  invalid_document: { status: 422, message: 'The file is not a readable PDF' },
  invalid_image: { status: 422, message: 'The file is not a supported image' },
  image_too_large: { status: 413, message: 'The image cannot be scaled to fit the frame' },
  batch_size: { status: 400, message: 'A batch holds 1 to 32 calls' },
  question_unanswered: { status: 409, message: 'The owner did not answer the question' },
  call_id_reused: {
    status: 409,
    message: 'This call id was already used for a different tool or different arguments',
  },
  tool_cancelled: { status: 409, message: 'The call was cancelled before it ran' },
  schema_too_complex: { status: 400, message: 'The tool input schema is larger or deeper than the daemon compiles' },
  tool_name_conflict: { status: 409, message: 'Another application already publishes a tool with this name here' },

  // ── qwen serve routes the Web Shell calls, outside the 25 operations (README, "The qwen Web Shell") ──
  invalid_archive_state: { status: 400, message: '`archiveState` must be "active" or "archived"' },
  invalid_cursor: { status: 400, message: 'The cursor is not one this daemon handed out' },
  invalid_session_source: { status: 400, message: '`sourceType` must match [a-z][a-z0-9_-]{0,63} when provided' },
  workspace_not_found: { status: 404, message: 'No registered workspace has this id or root' },
  workspace_is_remote: { status: 400, message: 'A remote workspace is read through its owner, not this route' },
  invalid_detail: { status: 400, message: 'detail must be one of: summary, full' },
  invalid_mid_turn_message: {
    status: 400,
    message: '`message` must be a non-empty string of at most 16384 characters, or `content` must carry at least one media block',
  },
  invalid_message_id: { status: 400, message: '`messageId` must be a non-empty string of at most 128 characters' },
  not_supported: { status: 501, message: 'This daemon does not offer this operation' },
  invalid_root_agent_id: { status: 400, message: '`rootAgentId` must be a non-empty agent id of at most 500 characters' },
  invalid_shell_command: { status: 400, message: '`command` is required and must be a non-empty string' },
  ...WIRE_AND_NODE_ERRORS,
});

export type ErrorCode = keyof typeof ERROR_CATALOG;

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(ERROR_CATALOG, value);
}
