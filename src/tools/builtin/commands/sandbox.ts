import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { isInside } from '../../../workspace/paths.js';

/** Where Debian's `bubblewrap` installs its binary. */
export const BWRAP_PATHS: readonly string[] = ['/usr/bin/bwrap', '/usr/local/bin/bwrap'];

/** Whether commands can run in a sandbox here, and if not, why not (said at start-up and in `/capabilities`). */
export type SandboxProbe =
  | { readonly available: true; readonly tool: 'bubblewrap'; readonly path: string }
  | { readonly available: false; readonly tool: null; readonly reason: string };

/** How long the start-up trial run of bubblewrap may take before it counts as unusable. */
const PROBE_TIMEOUT_MS = 10_000;

/**
 * Finds bubblewrap and runs one trivial sandbox with the options every
 * command gets, so a binary that the kernel will not let create namespaces
 * (no unprivileged user namespaces, a seccomp profile) counts as absent
 * rather than failing every command later.
 */
export function probeSandbox(candidates: readonly string[] = BWRAP_PATHS): SandboxProbe {
  const path = candidates.find((p) => existsSync(p));
  if (path === undefined) return NOT_INSTALLED;
  const trial = spawnSync(path, TRIAL_ARGS, { stdio: ['ignore', 'ignore', 'pipe'], timeout: PROBE_TIMEOUT_MS, env: {} });
  return verdict(path, trial.status, trial.signal, trial.error, trial.stderr?.toString() ?? '');
}

/** The same probe without blocking the event loop: what a daemon runs once its port is open. */
export function probeSandboxAsync(candidates: readonly string[] = BWRAP_PATHS): Promise<SandboxProbe> {
  const path = candidates.find((p) => existsSync(p));
  if (path === undefined) return Promise.resolve(NOT_INSTALLED);
  return new Promise((resolve) => {
    execFile(path, TRIAL_ARGS, { timeout: PROBE_TIMEOUT_MS, env: {} }, (error, _stdout, stderr) => {
      const code = error && typeof error.code === 'number' ? error.code : error ? null : 0;
      const spawnError = error && typeof error.code !== 'number' && !error.signal ? error : undefined;
      resolve(verdict(path, code, error?.signal ?? null, spawnError, stderr));
    });
  });
}

const NOT_INSTALLED: SandboxProbe = {
  available: false,
  tool: null,
  reason: 'bubblewrap (bwrap) is not installed; install the Debian package bubblewrap',
};

const TRIAL_ARGS: readonly string[] = [...baseArgs(false), '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--', '/bin/true'];

function verdict(path: string, status: number | null, signal: NodeJS.Signals | null, error: Error | undefined, stderr: string): SandboxProbe {
  if (status === 0) return { available: true, tool: 'bubblewrap', path };
  const why = error?.message ?? (stderr.trim() || `exit ${status ?? signal}`);
  return { available: false, tool: null, reason: `bubblewrap cannot create a sandbox here: ${why}` };
}

/** What one command's sandbox sees. All paths are absolute and canonical. */
export interface SandboxView {
  /** The workspace root, the only place it may write. */
  readonly root: string;
  /** Its working directory, inside `root`. */
  readonly cwd: string;
  /** Paths that must not be seen at all: the Berth home, the other workspaces. */
  readonly hidden: readonly string[];
  /** Whether it shares the host's network; false leaves it only a loopback of its own. */
  readonly network: boolean;
  /** More places it may write, bound after the hiding (an external agent's private HOME under the Berth home). */
  readonly binds?: readonly string[];
  /** Places it may read that `/tmp` would cover (the program's own install, see install-roots.ts); the hidden paths stay hidden inside them. */
  readonly readable?: readonly string[];
}

/** Namespaces and privileges: its own pids (no `/proc` of the daemon), no capabilities, gone with the daemon. */
function baseArgs(network: boolean): string[] {
  return [
    '--die-with-parent',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(network ? [] : ['--unshare-net']),
    // A root daemon's commands must not keep the capabilities that would let them unmount what hides the home.
    '--cap-drop',
    'ALL',
  ];
}

/**
 * The bubblewrap arguments (up to and including `--`) that run one command:
 * the whole system read-only, a fresh `/dev`, `/proc` (its own processes
 * only), `/tmp` and `/run` (no daemon sockets), then the hidden paths covered
 * by empty folders, then the workspace bound read-write over them — so a
 * workspace inside the home stays visible while the rest of the home does
 * not — and last the hidden paths inside the workspace (a nested workspace).
 */
export function sandboxArgs(view: SandboxView): string[] {
  const args = [...baseArgs(view.network), '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--tmpfs', '/run'];
  // A networked command still needs name resolution where /etc/resolv.conf points into /run.
  if (view.network) args.push('--ro-bind-try', '/run/systemd/resolve', '/run/systemd/resolve');
  for (const r of view.readable ?? []) args.push('--ro-bind', r, r);
  const outer = view.hidden.filter((h) => !isInside(view.root, h));
  const nested = view.hidden.filter((h) => h !== view.root && isInside(view.root, h));
  for (const h of outer) args.push('--tmpfs', h);
  args.push('--bind', view.root, view.root);
  for (const h of nested) args.push('--tmpfs', h);
  for (const b of view.binds ?? []) args.push('--bind', b, b);
  args.push('--chdir', view.cwd, '--');
  return args;
}

let probed: SandboxProbe | undefined;

/**
 * The probe of this machine, run once per process (every daemon a test starts
 * asks). A daemon runs it in the background once its port is open
 * (`probeMachineSandbox`); asking before that finished probes here and now.
 */
export function machineSandbox(): SandboxProbe {
  probed ??= probeSandbox();
  return probed;
}

/** Runs the machine's probe without blocking, unless it already ran; `machineSandbox()` then answers from it. */
export async function probeMachineSandbox(): Promise<SandboxProbe> {
  if (probed) return probed;
  const found = await probeSandboxAsync();
  probed ??= found;
  return probed;
}
