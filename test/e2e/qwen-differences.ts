import type { Differences } from '../support/wire-shape.js';

/**
 * Where Berth deliberately differs from the `qwen serve` recordings, and why
 * (read by conformance-qwen.test.ts). `qwenOnly` / `berthOnly` name whole
 * event kinds (see `signature` in test/support/wire-shape.ts); `missing` /
 * `extra` name field paths of one kind. The test fails on any difference not
 * listed here, and on any entry here that no longer differs.
 */
/** Berth's usage totals (docs/client-api.md, usage and cost) under `at`: one reason for the object and each count. */
function usageTotals(at: string, reason: string): Record<string, string> {
  const counts = ['requests', 'inputTokens', 'outputTokens', 'totalTokens', 'thoughtTokens', 'cachedReadTokens'];
  return Object.fromEntries([[at, reason], ...counts.map((c) => [`${at}.${c}`, `as ${at}`])]);
}

const TURN_USAGE = 'the turn’s token totals (issue 14: usage per turn), kept in its transcript record too';

export const QWEN_DIFFERENCES: Differences = {
  qwenOnly: {
    'session_update/available_commands_update':
      'Berth publishes the command list as event 1 when the session is created, before these scenarios open their live stream (a replay from 0 shows it); qwen sends it once the first stream attaches',
  },
  berthOnly: {
    'session_update/tool_call_update/in_progress':
      'Berth marks an approved call as running before it runs (an ACP status); qwen sends it only in its auto mode',
    'session_update/agent_message_chunk':
      'after a rejected call Berth gives the refusal back to the model, which answers; qwen ends the turn without asking the model again',
  },
  missing: {
    'session_update/user_message_chunk': {
      'data.update._meta.serverTimestamp': 'the envelope’s _meta.serverTimestamp carries the time (the SDK reads it first)',
    },
    'session_update/tool_call': {
      'data.update._meta.phase':
        'qwen announces a call while its arguments still stream ("preparing"); Berth announces it once they are complete',
      'data.update._meta.provenance':
        'optional in the SDK (absent = "unknown"); Berth’s tools come from the workspace, gateway channels or applications, not qwen’s builtin/mcp/subagent taxonomy',
    },
    'session_update/tool_call_update/completed': {
      'data.update._meta.provenance': 'as for tool_call',
      'data.update.content[].newText':
        'qwen ends an edit with its diff; Berth ends every call with the tool’s own result ({type:"content"}); the diff is on the permission_request',
      'data.update.content[].oldText': 'as content[].newText',
      'data.update.content[].path': 'as content[].newText',
    },
    'session_update/tool_call_update/failed': { 'data.update._meta.provenance': 'as for tool_call' },
  },
  extra: {
    'session_update/usage_update': {
      'data.update._meta': 'Berth adds the turn and session totals to qwen’s context fill (issue 14)',
      'data.update._meta.usage': 'as data.update._meta',
      ...usageTotals('data.update._meta.usage.turn', 'the running turn’s totals'),
      ...usageTotals('data.update._meta.usage.session', 'the session’s totals'),
    },
    'turn_complete/end_turn': {
      ...usageTotals('data.usage', TURN_USAGE),
      'data.branchPoint':
        'after a rejected call Berth’s model answers and the turn ends like any other, a point to rewind to (docs/client-api.md §5.13); qwen’s recording of that turn has no branch point',
      'data.branchPoint.assistantRecordUuid': 'as data.branchPoint',
      'data.branchPoint.checkpointUuid': 'as data.branchPoint',
    },
    'turn_complete/cancelled': usageTotals('data.usage', TURN_USAGE),
    'session_update/tool_call': {
      'data.update.locations[].path': 'qwen’s preparing tool_call has no locations yet; Berth knows the path when it announces the call',
    },
    'session_update/tool_call_update/completed': {
      'data.update.content[].content': 'the tool’s result as an ACP content block (see missing content[].newText)',
      'data.update.content[].content.text': 'as content[].content',
      'data.update.content[].content.type': 'as content[].content',
    },
    'session_update/tool_call_update/failed': {
      'data.update.rawOutput': 'Berth also gives the error object ({error:{code,message,retryable}}) a client can act on',
    },
    permission_request: {
      'data.toolCall._meta.policy': 'the tool’s policy (write/critical), so a client can show why it is asked',
    },
    permission_resolved: {
      'data.sessionId': 'Berth names the session on every permission event (qwen does on permission_request and permission_already_resolved)',
    },
  },
};
