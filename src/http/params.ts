import type { FastifyRequest } from 'fastify';

/** Path parameters arrive percent-decoded by the router; this reads one as a string. */
export function param(request: FastifyRequest, name: string): string {
  return String((request.params as Record<string, unknown>)[name] ?? '');
}

/** Query parameters as single strings (a repeated key keeps its first value). */
export function query(request: FastifyRequest): Record<string, string | undefined> {
  const raw = request.query as Record<string, unknown>;
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(raw ?? {})) out[k] = Array.isArray(v) ? String(v[0]) : v === undefined ? undefined : String(v);
  return out;
}

/** A JSON body that must be an object (absent means `{}`). */
export function objectBody(request: FastifyRequest): Record<string, unknown> | unknown {
  return request.body === undefined || request.body === null ? {} : request.body;
}
