export { startScriptedModel, type ScriptedModel, type ScriptedModelOptions } from './server.js';
export { lastUserText, type ChatRequestView, type RecordedRequest, type ScriptRule } from './script-state.js';
export {
  DEFAULT_REPLY,
  type DisconnectStep,
  type ErrorStep,
  type HangStep,
  type MatchRule,
  type ReplyStep,
  type ScriptedToolCall,
  type ScriptedUsage,
  type ScriptStep,
} from './steps.js';
export { ScriptedModelControl, spawnScriptedModel, type SpawnedScriptedModel } from './process.js';
