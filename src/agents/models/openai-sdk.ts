import type * as OpenAISdk from 'openai';

/**
 * The `openai` package, loaded on first use rather than at start-up (issue 17:
 * the port opens before it; the daemon loads it in the background right after).
 */
let loaded: typeof OpenAISdk | undefined;
let loading: Promise<typeof OpenAISdk> | undefined;

export function openaiSdk(): Promise<typeof OpenAISdk> {
  loading ??= import('openai').then((sdk) => (loaded = sdk));
  return loading;
}

/** The package if something has loaded it; an error can only be one of its classes if it has. */
export function loadedOpenaiSdk(): typeof OpenAISdk | undefined {
  return loaded;
}
