import { BerthError } from '../errors/index.js';
import { policyAllows, policyRank, type Policy, type ToolDefinition } from './types.js';

/**
 * The maximum policy a caller may discover and run (docs/tool-protocol.md, Authorization).
 * The guard filters discovery and refuses execution above it.
 */
export interface ToolGuard {
  readonly maxPolicy: Policy;
}

export const FULL_ACCESS: ToolGuard = { maxPolicy: 'critical' };

/**
 * The effective guard for a caller: its own maximum can lower the local guard
 * but never raise it (docs/tool-protocol.md: "maxToolPolicy can lower the effective
 * maximum but cannot raise the app's local guard").
 */
export function lowerGuard(local: ToolGuard, callerMax?: Policy | null): ToolGuard {
  if (!callerMax || policyRank(callerMax) >= policyRank(local.maxPolicy)) return local;
  return { maxPolicy: callerMax };
}

export function guardPermits(guard: ToolGuard, def: Pick<ToolDefinition, 'policy'>): boolean {
  return policyAllows(guard.maxPolicy, def.policy);
}

/** Refuses a call above the guard with `policy_denied`, naming both policies. */
export function assertGuardPermits(guard: ToolGuard, def: Pick<ToolDefinition, 'name' | 'policy'>): void {
  if (guardPermits(guard, def)) return;
  throw new BerthError(
    'policy_denied',
    `Tool ${def.name} has policy ${def.policy}; this caller may run at most ${guard.maxPolicy}`,
    { tool: def.name, policy: def.policy, maxPolicy: guard.maxPolicy },
  );
}
