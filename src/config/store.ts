/**
 * Which store engine the daemon uses (docs/store.md): SQLite in the home folder unless
 * `--store` or `BERTH_STORE_URL` names a PostgreSQL server. The flag wins over the
 * environment; an empty value means "not set".
 */
export type StoreChoice = { readonly engine: 'sqlite' } | { readonly engine: 'postgres'; readonly url: string };

export class StoreConfigError extends Error {
  override name = 'StoreConfigError';
}

export function resolveStoreChoice(flag: string | undefined, env: NodeJS.ProcessEnv): StoreChoice {
  const given = [flag, env.BERTH_STORE_URL].map((v) => v?.trim()).find((v) => v !== undefined && v !== '');
  if (given === undefined) return { engine: 'sqlite' };
  const source = flag?.trim() ? '--store' : 'BERTH_STORE_URL';
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new StoreConfigError(`${source} is not a URL; give postgres://user@host:port/database`);
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new StoreConfigError(`${source} must be a postgres:// or postgresql:// URL, not ${url.protocol}//… (SQLite needs no URL: leave it unset)`);
  }
  if (url.pathname.replace(/^\//, '') === '') throw new StoreConfigError(`${source} names no database: postgres://user@host:port/database`);
  return { engine: 'postgres', url: given };
}

/** The URL as it may be logged or shown: the password replaced. */
export function redactStoreUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    return u.toString();
  } catch {
    return '(unparsable store URL)';
  }
}
