import { ConfigError } from '../../config/config.js';
import { channelPath } from '../../protocol/gateway/frames.js';

/** The channel URL for B's base URL; a URL that carries credentials, a query or a fragment is refused. */
export function channelUrl(hostUrl: string, workspaceId: string): string {
  let u: URL;
  try {
    u = new URL(hostUrl);
  } catch {
    throw new ConfigError(`<host-url> must be an absolute URL such as http://127.0.0.1:4170, got ${hostUrl}`);
  }
  if (!['http:', 'https:', 'ws:', 'wss:'].includes(u.protocol)) {
    throw new ConfigError(`<host-url> must use http, https, ws or wss, got ${u.protocol}`);
  }
  if (u.username !== '' || u.password !== '') {
    throw new ConfigError('<host-url> must not carry credentials; the channel token goes in --token-file or BERTH_CHANNEL_TOKEN');
  }
  if (u.search !== '' || u.hash !== '') throw new ConfigError('<host-url> takes no query string or fragment');
  const scheme = u.protocol === 'https:' || u.protocol === 'wss:' ? 'wss:' : 'ws:';
  return `${scheme}//${u.host}${u.pathname.replace(/\/+$/, '')}${channelPath(workspaceId)}`;
}
