export { MESSAGING_TOOL_DEFINITIONS, messagingTools } from './agent-tools.js';
export { MODULE_SESSION_ENV, MODULE_SOCKET_ENV, MODULE_TOKEN_ENV, moduleEnvironment, type ModuleAccess } from './agent-env.js';
export { answerLine } from './answer.js';
export { MessagingService, type MessagingDeps, type TabView } from './service.js';
export type { Delivery, TabDeclaration } from './tabs.js';
export { ALL, KINDS, type Answer, type MessageKind, type Question, type Request } from './types.js';
