import type { Config } from '../config/config.js';
import type { Logger } from '../log.js';
import { CommandConfinement } from '../tools/builtin/commands/confinement.js';
import { machineSandbox, probeMachineSandbox, type SandboxProbe } from '../tools/builtin/commands/sandbox.js';
import type { WorkspaceRegistry } from '../workspace/registry.js';

/**
 * How the daemon's `workspace_exec` commands run (issue 16): the sandbox this
 * machine offers (or the one a test passes), the home and every local
 * workspace it must hide, each workspace's settings.
 */
export function confineCommands(config: Config, workspaces: WorkspaceRegistry, sandbox?: SandboxProbe): CommandConfinement {
  return new CommandConfinement({
    sandbox: sandbox ? () => sandbox : machineSandbox,
    home: config.home,
    workspaces: workspaces.list().flatMap((w) => (w.kind === 'local' ? [{ id: w.id, root: w.root }] : [])),
    settings: config.workspaceSettings,
  });
}

/**
 * Probes the machine's sandbox off the event loop (a trial run of bubblewrap
 * takes tens of milliseconds: the daemon runs it once its port is open), then
 * says when there is no sandbox, and when a workspace's `network: false`
 * cannot hold. `given` is a sandbox the caller chose (a test): nothing to probe.
 */
export async function reportCommandSandbox(confinement: CommandConfinement, log: Logger, given?: SandboxProbe): Promise<void> {
  if (!given) await probeMachineSandbox();
  const report = confinement.report();
  if (report.sandbox === null) {
    log.warn({ reason: report.reason }, 'commands run without a sandbox: they can read what this user can read and reach the network');
  }
  for (const id of confinement.unenforcedOffline()) log.warn({ workspaceId: id }, 'network: false cannot be enforced without a sandbox');
}
