// The client API as the page calls it: the token from the login screen lives in sessionStorage
// (gone when the tab closes) and travels only in the Authorization header, never in a URL.

const TOKEN_KEY = 'berth.token';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const token = {
  get: (): string => sessionStorage.getItem(TOKEN_KEY) ?? '',
  set: (value: string) => (value === '' ? sessionStorage.removeItem(TOKEN_KEY) : sessionStorage.setItem(TOKEN_KEY, value)),
};

export function headers(extra: Record<string, string> = {}): Record<string, string> {
  const t = token.get();
  return { ...(t ? { authorization: `Bearer ${t}` } : {}), ...extra };
}

async function failure(res: Response): Promise<ApiError> {
  let code = `http_${res.status}`;
  let message = res.statusText || `HTTP ${res.status}`;
  try {
    const body = (await res.json()) as { code?: string; error?: string; message?: string };
    code = body.code ?? code;
    message = body.error ?? body.message ?? message;
  } catch {
    /* not JSON */
  }
  return new ApiError(res.status, code, message);
}

/** A JSON call; a refusal becomes an ApiError carrying the daemon's stable `code`. */
export async function api<T = any>(method: string, path: string, body?: unknown, extra: Record<string, string> = {}): Promise<T> {
  const init: RequestInit = { method, headers: headers(body === undefined ? extra : { 'content-type': 'application/json', ...extra }) };
  if (body !== undefined) init.body = JSON.stringify(body);
  const res = await fetch(path, init);
  if (!res.ok) throw await failure(res);
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

/** A download (export): the body as a Blob, with the file name the daemon suggests. */
export async function download(path: string): Promise<{ blob: Blob; filename: string }> {
  const res = await fetch(path, { headers: headers() });
  if (!res.ok) throw await failure(res);
  const disposition = res.headers.get('content-disposition') ?? '';
  const filename = /filename="([^"]+)"/.exec(disposition)?.[1] ?? 'export';
  return { blob: await res.blob(), filename };
}

/**
 * Does the daemon take this token (or none)? `GET /capabilities` needs the same owner token as
 * every route, so its answer (the workspaces, the model services) comes back with the yes.
 */
export async function checkToken(): Promise<any | null> {
  try {
    return await api('GET', '/capabilities');
  } catch (err) {
    if (err instanceof ApiError && (err.status === 401 || err.status === 403)) return null;
    throw err;
  }
}

/** The token check the page started as it loaded (`precheckToken`), until the app takes it. */
let early: Promise<any | null> | null = null;

/** Starts `checkToken` at once (web/src/main.tsx), beside the session's load, before the app has compiled. */
export function precheckToken(): void {
  early = checkToken();
  early.catch(() => {});
}

/** The answer of the check started early, or of a new one. */
export function firstTokenCheck(): Promise<any | null> {
  const check = early ?? checkToken();
  early = null;
  return check;
}
