import type { Command } from 'commander';
import { existsSync, writeFileSync } from 'node:fs';
import { ConfigError, defaultHome } from '../config/config.js';
import { REMOTE_WORKSPACE_ID } from '../protocol/gateway/frames.js';
import { sqliteRepositories } from '../main/repositories.js';
import { openStore } from '../store/db.js';
import { TokenService, type Policy } from '../tokens/tokens.js';

export function registerToken(program: Command): void {
  const token = program.command('token').description('Manage scoped bearer tokens.');
  token
    .command('create')
    .description(
      'Create a channel token (--channel --workspace ID) or an application token (--app NAME). Prints only the token, or writes it to --out FILE.',
    )
    .option('--channel', 'a gateway channel token for one remote workspace')
    .option('--workspace <id>', 'the workspace a channel token opens')
    .option('--app <name>', 'an application token for the tool protocol')
    .option('--max-policy <policy>', 'highest tool policy the application may publish: read, write or critical', 'read')
    .option('--home <dir>', 'state folder (default: $BERTH_HOME or ~/.berth)')
    .option('--out <file>', 'write the token to this new file, readable by you only (0600), instead of printing it')
    .action(async (opts: { channel?: boolean; workspace?: string; app?: string; maxPolicy: string; home?: string; out?: string }) => {
      if (Boolean(opts.channel) === Boolean(opts.app)) {
        throw new ConfigError('token create needs exactly one of --channel or --app');
      }
      if (opts.out !== undefined && existsSync(opts.out)) {
        // Writing into a file that exists keeps its mode, which may let others read it: refuse before minting.
        throw new ConfigError(`--out ${opts.out} exists; remove it or name a new file (the token is written only to a new file, mode 0600)`);
      }
      const store = openStore(opts.home ?? defaultHome());
      try {
        const service = new TokenService(sqliteRepositories(store.db).tokens, null);
        let created: { token: string };
        if (opts.channel) {
          if (!opts.workspace) throw new ConfigError('--channel needs --workspace ID');
          if (!REMOTE_WORKSPACE_ID.test(opts.workspace)) {
            throw new ConfigError('--workspace takes the remote workspace id: 1-128 chars of [A-Za-z0-9._-]');
          }
          created = await service.createChannelToken(opts.workspace);
        } else {
          if (!['read', 'write', 'critical'].includes(opts.maxPolicy)) {
            throw new ConfigError('--max-policy must be read, write or critical');
          }
          if (!/^[A-Za-z0-9._-]{1,64}$/.test(opts.app!)) {
            throw new ConfigError('--app names are 1-64 chars of [A-Za-z0-9._-]');
          }
          created = await service.createAppToken(opts.app!, opts.maxPolicy as Policy);
        }
        if (opts.out === undefined) process.stdout.write(created.token + '\n');
        else {
          writeFileSync(opts.out, created.token + '\n', { mode: 0o600, flag: 'wx' });
          process.stdout.write(`token written to ${opts.out} (mode 0600: only you can read it)\n`);
        }
      } finally {
        store.close();
      }
    });
}
