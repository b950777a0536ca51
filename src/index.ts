/**
 * `import('berth')` (the package's "." export): start a daemon from code with
 * the same composition root `berth serve` uses. The application SDK is the
 * separate `berth/app` export.
 */
export { startDaemon, type Daemon, type DaemonOptions } from './main/daemon.js';
export { ConfigError, resolveConfig, type Config, type ConfigInput } from './config/config.js';
