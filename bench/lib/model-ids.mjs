// The model identity both daemons are configured with (the names the reference captures used).
export const MODEL_ID = 'mock-model';
export const MODEL_IDS = [MODEL_ID, 'mock-model-2'];
export const MODEL_API_KEY = 'sk-mock-key';

/** The model environment both daemons get: the same scripted model, key and model id. */
export function modelEnv(modelUrl) {
  return { OPENAI_API_KEY: MODEL_API_KEY, OPENAI_BASE_URL: modelUrl, OPENAI_MODEL: MODEL_ID };
}
