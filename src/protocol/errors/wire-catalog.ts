import { spec } from './error-spec.js';

/** The error codes of the wire protocols and of several nodes on one store; catalog.ts folds them into the one catalogue. */
export const WIRE_AND_NODE_ERRORS = spec({
  // ── wire protocols (seeds 000, 003, 004) ────────────────────────────────
  protocol_error: { status: 400, message: 'Protocol error', errorKind: 'protocol_error' },
  invalid_encoding: { status: 400, message: 'Invalid payload encoding', errorKind: 'protocol_error' },
  frame_too_large: { status: 413, message: 'Frame exceeds the size limit' },
  channel_limit_exceeded: { status: 429, message: 'Too many gateway channels', retryable: true },
  channel_unavailable: {
    status: 503,
    message: 'No gateway channel is connected for this workspace',
    retryable: true,
  },
  workspace_not_remote: { status: 400, message: 'The workspace is not a remote workspace' },
  intention_mismatch: { status: 403, message: 'The call does not carry the launch intention the owner pinned' },
  application_disconnected: {
    status: 503,
    message: 'The application disconnected',
    retryable: true,
  },
  application_limit_exceeded: {
    status: 429,
    message: 'Too many applications are connected',
    retryable: true,
    retryAfterSeconds: 5,
  },
  malformed: { status: 400, message: 'Malformed question' },
  message_too_long: { status: 413, message: 'The message is too long' },
  unknown_tab: { status: 404, message: 'No such tab' },
  network_rule: { status: 403, message: 'A tab without network may not send to a tab with network' },
  hop_limit: { status: 429, message: 'This chain of messages has gone on too long' },
  pace_limit: { status: 429, message: 'Too many messages from this tab', retryable: true },

  // ── several nodes on one store (docs/cluster-bus.md) ────────────────────
  owner_unreachable: { status: 503, message: 'The node running this session did not answer over the cluster bus', retryable: true, retryAfterSeconds: 1 },
  bus_message_too_large: { status: 413, message: 'The request or its answer exceeds the cluster bus message size' },
});
