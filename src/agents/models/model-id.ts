/**
 * Model ids as clients see them (`SessionState.models`, `POST /session/:id/model`):
 * `<serviceId>/<model>`, e.g. `env/qwen3-coder-plus` or `local/Qwen/Qwen3-8B`.
 * Service ids never contain `/`, so the first `/` splits the two unambiguously
 * even when the model name has slashes of its own. A bare model name is also
 * accepted on input when exactly one service offers it.
 */
export function toClientModelId(serviceId: string, model: string): string {
  return `${serviceId}/${model}`;
}

export function splitClientModelId(id: string): { serviceId: string; model: string } | undefined {
  const slash = id.indexOf('/');
  if (slash <= 0 || slash === id.length - 1) return undefined;
  return { serviceId: id.slice(0, slash), model: id.slice(slash + 1) };
}
