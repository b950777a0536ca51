import type { Method, Refusal } from './workspace-refusals.js';

/** One refusal the table found for a request, with the route's `:name` segments decoded. */
export interface RefusalHit {
  readonly method: Method;
  readonly url: string;
  readonly message: string;
  readonly params: Readonly<Record<string, string>>;
}

interface Entry {
  readonly method: Method;
  readonly url: string;
  readonly message: string;
  readonly pattern: RegExp;
  readonly names: readonly string[];
}

/**
 * A table of refused routes (`METHOD /path/:param`) read as data: which catch-all routes serve
 * it, and which entry a request names. Matching compiles the patterns on first use, since a
 * refused route is rare and start-up should not pay for it.
 */
export class RefusalTable {
  private entries: readonly Entry[] | undefined;

  constructor(private readonly refusals: readonly Refusal[]) {}

  /**
   * The routes to register: `/first/*` for each first path segment with deeper paths under it,
   * the path itself for a one-segment one, each with the methods the table uses there.
   */
  catchAlls(): { method: Method[]; url: string }[] {
    const methods = new Map<string, Set<Method>>();
    for (const [method, url] of this.refusals) {
      const segments = url.split('/').filter((s) => s !== '');
      const route = segments.length > 1 ? `/${segments[0]}/*` : url;
      methods.set(route, (methods.get(route) ?? new Set<Method>()).add(method));
    }
    return [...methods].map(([url, set]) => ({ url, method: [...set] }));
  }

  match(method: string, path: string): RefusalHit | undefined {
    this.entries ??= this.refusals.map(([m, url, message]) => compile(m, url, message));
    for (const e of this.entries) {
      if (e.method !== method) continue;
      const m = e.pattern.exec(path);
      if (!m) continue;
      const params: Record<string, string> = {};
      try {
        e.names.forEach((name, i) => (params[name] = decodeURIComponent(m[i + 1]!)));
      } catch {
        return undefined; // a malformed escape names no route
      }
      return { method: e.method, url: e.url, message: e.message, params };
    }
    return undefined;
  }
}

function compile(method: Method, url: string, message: string): Entry {
  const names: string[] = [];
  const source = url
    .split('/')
    .map((segment) => {
      if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(segment.slice(1));
      return '([^/]+)';
    })
    .join('/');
  return { method, url, message, pattern: new RegExp(`^${source}/?$`), names };
}
