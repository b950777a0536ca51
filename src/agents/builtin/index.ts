export { BuiltinAgentDriver, createBuiltinDriver, type BuiltinDriverOptions } from './driver.js';
export { PLAN_TOOL_NAME } from './plan-tool.js';
export { SYSTEM_PROMPT } from './system-prompt.js';
