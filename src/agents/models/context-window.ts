import type { ConfiguredModel } from '../../config/model-services.js';

/**
 * Context windows by model family, for models config.json does not describe
 * (`models[].contextWindow` wins). The first pattern that matches the model id
 * decides; the figures are the providers' published windows, rounded down.
 */
const FAMILY_WINDOWS: readonly (readonly [RegExp, number])[] = [
  [/gpt-4\.1|gemini/i, 1_000_000],
  [/claude|o1|o3|o4/i, 200_000],
  [/gpt-4o|gpt-4-turbo|gpt-5/i, 128_000],
  [/qwen|deepseek|llama|mistral|kimi|glm/i, 128_000],
  [/gpt-3\.5/i, 16_000],
];

/** Compaction starts when a request would fill more than this share of the context window (config `compactAt`). */
export const DEFAULT_COMPACT_FRACTION = 0.8;

/** A model nobody describes is assumed to hold this many tokens: small enough that compaction starts in time. */
export const DEFAULT_CONTEXT_WINDOW = 32_000;

/** The context window of `model`: configured, else by family, else the default. */
export function contextWindowOf(model: string, configured: readonly ConfiguredModel[] | undefined): number {
  const entry = configured?.find((m) => m.id === model);
  if (entry?.contextWindow !== undefined) return entry.contextWindow;
  return FAMILY_WINDOWS.find(([pattern]) => pattern.test(model))?.[1] ?? DEFAULT_CONTEXT_WINDOW;
}
