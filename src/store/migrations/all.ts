import type { Migration } from '../migration.js';
import { m001Core } from './001_core.js';
import { m002Receipts } from './002_receipts.js';
import { m003Sessions } from './003_sessions.js';
import { m004Tokens } from './004_tokens.js';
import { m005GatewayCalls } from './005_gateway_calls.js';
import { m006Module } from './006_module.js';
import { m007TranscriptOverflow } from './007_transcript_overflow.js';
import { m008ModuleInboxWaiting } from './008_module_inbox_waiting.js';
import { m010PermissionGrants } from './010_permission_grants.js';
import { m012Checkpoints } from './012_checkpoints.js';
import { m013SessionLeases } from './013_session_leases.js';
import { m014GatewayChannels } from './014_gateway_channels.js';
import { m015GatewayChannelAge } from './015_gateway_channel_age.js';
import { m016SettledIndexes } from './016_settled_indexes.js';
import { m017ModuleTabCounters } from './017_module_tab_counters.js';

/**
 * Every migration, in order. Ids are reserved per area so parallel work does not collide:
 * 1 core · 2 receipts (tools) · 3 sessions + transcript · 4 tokens · 5 gateway call journal ·
 * 6 module inboxes · 7 transcript overflow · 8 inbox counts · 10 permission grants · 12 file checkpoints · 13 session leases (cluster) ·
 * 14 gateway channels (cluster) · 15 gateway channel age (cluster) · 16 finished-only indexes of receipts and the
 * gateway journal · 17 module tab counters · 9, 11, 18+ later.
 */
export const MIGRATIONS: readonly Migration[] = [
  m001Core,
  m002Receipts,
  m003Sessions,
  m004Tokens,
  m005GatewayCalls,
  m006Module,
  m007TranscriptOverflow,
  m008ModuleInboxWaiting,
  m010PermissionGrants,
  m012Checkpoints,
  m013SessionLeases,
  m014GatewayChannels,
  m015GatewayChannelAge,
  m016SettledIndexes,
  m017ModuleTabCounters,
];
