export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type Refusal = readonly [Method, string, string];

/** Messages the session-level table shares. */
export const NO_GENERATION = 'Berth has no one-off generation: send a prompt';
export const NO_LANGUAGE = 'Berth has no output-language setting: name the language in the prompt';
export const NO_GOALS = 'Berth has no goal mode';
export const NO_GROUPS = 'Berth has no session groups: rename a session with PATCH /session/{id}/metadata';

const NO_AGENTS = 'Berth has no custom subagents: a session runs one agent with Berth\'s tools (GET /workspace/tools)';
const NO_MEMORY = 'Berth keeps no memory files: put what the agent should know in the prompt or in the workspace';
const NO_MCP_EDITS = 'Berth\'s MCP servers come from its config.json and .berth/mcp.json and start with a session; their tools are listed at GET /workspace/tools (mcp__<server>__<tool>)';
const NO_EXTENSIONS = 'Berth has no extensions: its tools are built in, from MCP servers or published by applications (GET /workspace/tools)';
const NO_SKILLS = 'Berth has no skills: its tools are listed at GET /workspace/tools';
const NO_CONFIG = 'Berth is configured by its flags and config.json, not over HTTP';
const NO_RULES = 'Berth has no permission rule files: it asks per call under the approval mode (POST /session/{id}/approval-mode) and remembers an "always" answer to POST /permission/{requestId}';
const NO_CHANNELS = 'Berth has no chat channels: a remote owner lends a workspace through the gateway channel';
const NO_GIT = 'Berth runs no git or GitHub for a client: the agent runs git in the workspace with its tools';
const NO_RUNTIME = 'Berth runs its agents inside the daemon: there is no separate runtime to start, stop or preheat';
const NO_AUTH = 'Berth\'s model services and their keys are set in its config.json: there is no login';
const NO_VOICE = 'Berth has no voice or live mode: send prompts as text';
const NO_TRUST = 'A Berth workspace\'s trust is set when it is registered (flags and config.json)';

/**
 * qwen serve's workspace routes the Web Shell calls that Berth does not offer, each with what
 * Berth does instead. Each suffix is served under `/workspace` (the primary workspace) and under
 * `/workspaces/{cwd}` (a named one, 404 workspace_not_found when unknown), as the Web Shell uses both.
 */
export const WORKSPACE_REFUSED: readonly Refusal[] = [
  ['POST', '/agents', NO_AGENTS],
  ['POST', '/agents/generate', NO_AGENTS],
  ['GET', '/agents/:agentType', NO_AGENTS],
  ['POST', '/agents/:agentType', NO_AGENTS],
  ['DELETE', '/agents/:agentType', NO_AGENTS],
  ['POST', '/memory', NO_MEMORY],
  ['POST', '/memory/remember', NO_MEMORY],
  ['POST', '/memory/forget', NO_MEMORY],
  ['POST', '/memory/dream', NO_MEMORY],
  ['GET', '/mcp', NO_MCP_EDITS],
  ['GET', '/mcp/:server/tools', NO_MCP_EDITS],
  ['GET', '/mcp/:server/resources', NO_MCP_EDITS],
  ['POST', '/mcp/:server/:action', NO_MCP_EDITS],
  ['POST', '/mcp/initialize', NO_MCP_EDITS],
  ['POST', '/mcp/reload', NO_MCP_EDITS],
  ['POST', '/mcp/servers', NO_MCP_EDITS],
  ['DELETE', '/mcp/servers/:name', NO_MCP_EDITS],
  ['GET', '/config/mcp/servers', NO_MCP_EDITS],
  ['PUT', '/config/mcp/servers/:name', NO_MCP_EDITS],
  ['DELETE', '/config/mcp/servers/:name', NO_MCP_EDITS],
  ['POST', '/config/mcp/:server/:action', NO_MCP_EDITS],
  ['GET', '/runtime/mcp', NO_MCP_EDITS],
  ['POST', '/runtime/mcp/reload', NO_MCP_EDITS],
  ['GET', '/runtime/mcp/:server/tools', NO_MCP_EDITS],
  ['GET', '/runtime/mcp/:server/resources', NO_MCP_EDITS],
  ['POST', '/runtime/mcp/:server/:action', NO_MCP_EDITS],
  ['GET', '/extensions/operations', NO_EXTENSIONS],
  ['GET', '/extensions/operations/:operationId', NO_EXTENSIONS],
  ['POST', '/extensions/operations/:operationId/interactions/:interactionId', NO_EXTENSIONS],
  ['POST', '/extensions/install', NO_EXTENSIONS],
  ['POST', '/extensions/install-archive', NO_EXTENSIONS],
  ['POST', '/extensions/check-updates', NO_EXTENSIONS],
  ['POST', '/extensions/refresh', NO_EXTENSIONS],
  ['PUT', '/extensions/activation', NO_EXTENSIONS],
  ['POST', '/extensions/:name/enable', NO_EXTENSIONS],
  ['POST', '/extensions/:name/disable', NO_EXTENSIONS],
  ['POST', '/extensions/:name/update', NO_EXTENSIONS],
  ['DELETE', '/extensions/:name', NO_EXTENSIONS],
  ['GET', '/extensions/:name/state', NO_EXTENSIONS],
  ['PUT', '/extensions/:name/state', NO_EXTENSIONS],
  ['PUT', '/extensions/:name/activation', NO_EXTENSIONS],
  ['DELETE', '/extensions/:name/activation', NO_EXTENSIONS],
  ['POST', '/skills/enable', NO_SKILLS],
  ['POST', '/skills/install', NO_SKILLS],
  ['POST', '/skills/:name/enable', NO_SKILLS],
  ['DELETE', '/skills/:name', NO_SKILLS],
  ['GET', '/config/skills', NO_SKILLS],
  ['POST', '/config/skills/install', NO_SKILLS],
  ['POST', '/config/skills/:name/enable', NO_SKILLS],
  ['DELETE', '/config/skills/:name', NO_SKILLS],
  ['GET', '/runtime/skills', NO_SKILLS],
  ['POST', '/tools/:name/enable', NO_CONFIG],
  ['POST', '/settings', NO_CONFIG],
  ['PATCH', '/models', NO_CONFIG],
  ['DELETE', '/models', NO_CONFIG],
  ['POST', '/init', NO_CONFIG],
  ['POST', '/reload', NO_CONFIG],
  ['GET', '/env', NO_CONFIG],
  ['GET', '/preflight', NO_CONFIG],
  ['GET', '/local-control', NO_CONFIG],
  ['POST', '/local-control/enable', NO_CONFIG],
  ['POST', '/local-control/disable', NO_CONFIG],
  ['POST', '/notify', 'Berth sends no desktop notifications: a client follows the session\'s event stream'],
  ['POST', '/open', 'Berth opens nothing on the machine it runs on: read files with GET /file'],
  ['POST', '/generate', NO_GENERATION],
  ['GET', '/permissions', NO_RULES],
  ['POST', '/permissions', NO_RULES],
  ['GET', '/channels', NO_CHANNELS],
  ['GET', '/channel-types', NO_CHANNELS],
  ['PUT', '/channels/:name', NO_CHANNELS],
  ['DELETE', '/channels/:name', NO_CHANNELS],
  ['PUT', '/channels/:name/startup', NO_CHANNELS],
  ['GET', '/channels/:name/pairing-requests', NO_CHANNELS],
  ['POST', '/channels/:name/pairing-requests/approve', NO_CHANNELS],
  ['GET', '/channels/:name/pairing-approvals', NO_CHANNELS],
  ['DELETE', '/channels/:name/pairing-approvals', NO_CHANNELS],
  ['GET', '/channel', NO_CHANNELS],
  ['PUT', '/channel', NO_CHANNELS],
  ['DELETE', '/channel', NO_CHANNELS],
  ['POST', '/channel/reload', NO_CHANNELS],
  ['GET', '/channel/observed-contacts', NO_CHANNELS],
  ['GET', '/git/branches', NO_GIT],
  ['GET', '/git/diff', NO_GIT],
  ['GET', '/git/diff/file', NO_GIT],
  ['GET', '/git/log', NO_GIT],
  ['GET', '/git/log/commit', NO_GIT],
  ['GET', '/git/remotes', NO_GIT],
  ['POST', '/git/branch', NO_GIT],
  ['POST', '/git/checkout', NO_GIT],
  ['POST', '/git/commit', NO_GIT],
  ['POST', '/git/pull', NO_GIT],
  ['POST', '/git/push', NO_GIT],
  ['POST', '/git/remote', NO_GIT],
  ['POST', '/git/remote/remove', NO_GIT],
  ['GET', '/github/default-branch', NO_GIT],
  ['GET', '/github/prs', NO_GIT],
  ['POST', '/github/prs/create', NO_GIT],
  ['POST', '/setup-github', NO_GIT],
  ['GET', '/runtime/status', NO_RUNTIME],
  ['POST', '/runtime/ensure', NO_RUNTIME],
  ['POST', '/runtime/stop', NO_RUNTIME],
  ['GET', '/acp/status', NO_RUNTIME],
  ['POST', '/acp/preheat', NO_RUNTIME],
  ['GET', '/auth/status', NO_AUTH],
  ['GET', '/auth/providers', NO_AUTH],
  ['POST', '/auth/provider', NO_AUTH],
  ['POST', '/auth/device-flow', NO_AUTH],
  ['GET', '/auth/device-flow/:id', NO_AUTH],
  ['DELETE', '/auth/device-flow/:id', NO_AUTH],
  ['GET', '/voice', NO_VOICE],
  ['POST', '/voice', NO_VOICE],
  ['POST', '/voice/transcribe', NO_VOICE],
  ['GET', '/trust', NO_TRUST],
  ['POST', '/trust/request', NO_TRUST],
];

const NO_REGISTRATION = 'Berth\'s workspaces are registered by its flags and config.json, not over HTTP';
const NO_LIVE = NO_VOICE;
const NO_SEARCH = 'Berth has no session search: GET /workspace/{cwd}/sessions lists them, newest activity first';
const NO_STANDALONE =
  'Berth has no standalone (projectless) sessions: every session belongs to a registered workspace; open one with POST /session (cwd) and list them with GET /workspaces/{cwd}/sessions';
const NO_WRITES = 'Berth writes files only through a session\'s tools, under its approval mode: send a prompt';

/** The daemon's own routes the Web Shell calls, refused the same way (full paths). */
export const DAEMON_REFUSED: readonly Refusal[] = [
  ['GET', '/extensions/operations/:operationId', NO_EXTENSIONS],
  ['POST', '/extensions/install', NO_EXTENSIONS],
  ['POST', '/extensions/check-updates', NO_EXTENSIONS],
  ['PUT', '/extensions/activation', NO_EXTENSIONS],
  ['PUT', '/extensions/:extensionId/activation', NO_EXTENSIONS],
  ['POST', '/extensions/:extensionId/update', NO_EXTENSIONS],
  ['DELETE', '/extensions/:extensionId', NO_EXTENSIONS],
  ['POST', '/workspace/:cwd/session-groups', NO_GROUPS],
  ['PATCH', '/workspace/:cwd/session-groups/:groupId', NO_GROUPS],
  ['DELETE', '/workspace/:cwd/session-groups/:groupId', NO_GROUPS],
  ['POST', '/workspaces/:cwd/session-groups', NO_GROUPS],
  ['PATCH', '/workspaces/:cwd/session-groups/:groupId', NO_GROUPS],
  ['DELETE', '/workspaces/:cwd/session-groups/:groupId', NO_GROUPS],
  ['POST', '/file/write', NO_WRITES],
  ['POST', '/file/edit', NO_WRITES],
  ['POST', '/file/upload', NO_WRITES],
  ['POST', '/workspaces/:cwd/file/write', NO_WRITES],
  ['POST', '/workspaces/:cwd/file/edit', NO_WRITES],
  ['POST', '/workspaces/:cwd/file/upload', NO_WRITES],
  ['PATCH', '/workspaces/:cwd/session/:id/organization', NO_GROUPS],
  ['GET', '/workspaces/:cwd/session/:id/archive/export', 'Berth archives no sessions: GET /session/{id}/export exports one'],
  ['GET', '/workspace/:cwd/sessions/search', NO_SEARCH],
  ['GET', '/workspaces/:cwd/sessions/search', NO_SEARCH],
  ['POST', '/workspaces', NO_REGISTRATION],
  ['PATCH', '/workspaces/:cwd', NO_REGISTRATION],
  ['DELETE', '/workspaces/:cwd', NO_REGISTRATION],
  ['GET', '/workspaces/runtime-stop-options', NO_RUNTIME],
  ['POST', '/workspace-directory-picker', NO_REGISTRATION],
  ['GET', '/workspace-path-suggestions', NO_REGISTRATION],
  ['GET', '/goals', NO_GOALS],
  ['GET', '/usage/dashboard', 'Berth keeps no usage dashboard: GET /session/{id}/stats counts one session'],
  ['POST', '/language', NO_LANGUAGE],
  ['GET', '/live/status', NO_LIVE],
  ['POST', '/live/start', NO_LIVE],
  ['POST', '/live/new', NO_LIVE],
  ['POST', '/live/stop', NO_LIVE],
  ['POST', '/live/mute', NO_LIVE],
  ['POST', '/live/shortcut', NO_LIVE],
  ['GET', '/live/setup', NO_LIVE],
  ['POST', '/live/setup', NO_LIVE],
  ['POST', '/live/setup/install', NO_LIVE],
  ['POST', '/live/setup/launch', NO_LIVE],
  // The Web Shell calls these only when /capabilities advertises `standalone_sessions_v1`, which Berth does not.
  ['GET', '/standalone/session-options', NO_STANDALONE],
  ['POST', '/standalone/sessions', NO_STANDALONE],
  ['GET', '/standalone/sessions', NO_STANDALONE],
  ['GET', '/standalone/sessions/:id', NO_STANDALONE],
  ['POST', '/standalone/sessions/:id/load', NO_STANDALONE],
  ['POST', '/standalone/sessions/:id/resume', NO_STANDALONE],
  ['POST', '/standalone/sessions/:id/repair-directory', NO_STANDALONE],
  ['PATCH', '/standalone/sessions/:id/metadata', NO_STANDALONE],
  ['GET', '/standalone/sessions/:id/export', NO_STANDALONE],
  ['POST', '/standalone/sessions/archive', NO_STANDALONE],
  ['POST', '/standalone/sessions/unarchive', NO_STANDALONE],
  ['POST', '/standalone/sessions/delete', NO_STANDALONE],
];

/** Both spellings of every workspace-level refusal, then the daemon-level ones. */
export const LEVEL_REFUSED: readonly Refusal[] = [
  ...WORKSPACE_REFUSED.flatMap(([method, suffix, message]): Refusal[] => [
    [method, `/workspace${suffix}`, message],
    [method, `/workspaces/:cwd${suffix}`, message],
  ]),
  ...DAEMON_REFUSED,
];
