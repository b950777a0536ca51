import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { compileSchema } from '../protocol/tools/arguments.js';
import type { JsonSchema } from '../protocol/tools/types.js';

/**
 * Model services: OpenAI-compatible chat-completion endpoints the built-in
 * agent can use. They come from `$BERTH_HOME/config.json` (`modelServices`)
 * and from `OPENAI_BASE_URL` / `OPENAI_API_KEY` / `OPENAI_MODEL` (the service
 * with id `env`). Everything is checked once, at start-up.
 */

/** A model a service offers, as configured. */
export interface ConfiguredModel {
  readonly id: string;
  readonly name?: string;
  readonly description?: string;
  /** Tokens the model's context holds; default by model family (agents/models/context-window.ts). */
  readonly contextWindow?: number;
  /** What a request costs; with it, usage events and the session status carry a cost. */
  readonly price?: ModelPrice;
  /** Share of the context window past which the built-in agent compacts (default 0.8). */
  readonly compactAt?: number;
}

/** A model's price per million tokens (config.json `modelServices[].models[].price`). */
export interface ModelPrice {
  readonly inputPerMillion: number;
  readonly outputPerMillion: number;
  /** Prompt tokens served from the provider's cache; default: the input price. */
  readonly cachedInputPerMillion?: number;
  /** Default `USD`. */
  readonly currency?: string;
}

/** One service after resolution: the API key is read (from the file or the named env var), never logged. */
export interface ModelServiceSpec {
  readonly id: string;
  readonly baseUrl: string;
  readonly apiKey?: string;
  /** When absent, the models are discovered from the endpoint's `GET /models`. */
  readonly models?: readonly ConfiguredModel[];
  readonly defaultModel?: string;
}

/** The id of the service built from the OPENAI_* environment variables. */
export const ENV_SERVICE_ID = 'env';
/** Where OPENAI_API_KEY alone points, as the `openai` client itself assumes. */
export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';
export const HOME_CONFIG_FILE = 'config.json';

const SERVICE_ID_PATTERN = '^[A-Za-z0-9._-]{1,64}$';

/**
 * JSON Schema of `$BERTH_HOME/config.json`. Unknown top-level keys are allowed
 * (other parts of Berth may keep settings there); inside a service every field
 * is known, so a typo is refused rather than ignored.
 */
export const HOME_CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    defaultModelService: { type: 'string', pattern: SERVICE_ID_PATTERN },
    modelServices: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'baseUrl'],
        properties: {
          id: { type: 'string', pattern: SERVICE_ID_PATTERN },
          baseUrl: { type: 'string', pattern: '^https?://[^\\s]+$' },
          apiKey: { type: 'string', minLength: 1 },
          apiKeyEnv: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
          models: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['id'],
              properties: {
                id: { type: 'string', minLength: 1 },
                name: { type: 'string', minLength: 1 },
                description: { type: 'string' },
                contextWindow: { type: 'integer', minimum: 1024 },
                compactAt: { type: 'number', minimum: 0.1, maximum: 0.95 },
                price: {
                  type: 'object',
                  additionalProperties: false,
                  required: ['inputPerMillion', 'outputPerMillion'],
                  properties: {
                    inputPerMillion: { type: 'number', minimum: 0 },
                    outputPerMillion: { type: 'number', minimum: 0 },
                    cachedInputPerMillion: { type: 'number', minimum: 0 },
                    currency: { type: 'string', pattern: '^[A-Z]{3}$' },
                  },
                },
              },
            },
          },
          defaultModel: { type: 'string', minLength: 1 },
        },
        not: { required: ['apiKey', 'apiKeyEnv'] },
      },
    },
  },
} as const;

/** The file as written (before env lookups). */
interface HomeConfigFile {
  readonly defaultModelService?: string;
  readonly modelServices?: ReadonlyArray<Omit<ModelServiceSpec, 'apiKey'> & { apiKey?: string; apiKeyEnv?: string }>;
}

/** Compiled on the first file read, not at start-up: a daemon without config.json never pays for it. */
const fileValidator = (): ValidateFunction<HomeConfigFile> => compileSchema<HomeConfigFile>(HOME_CONFIG_SCHEMA as JsonSchema, 'config schema');

/** A start-up problem with the model configuration; the message names the file and the field. */
export class ModelConfigError extends Error {
  override name = 'ConfigError';
}

function fieldOf(e: ErrorObject): string {
  const path = e.instancePath.replace(/\/(\d+)/g, '[$1]').replace(/\//g, '.').replace(/^\./, '');
  const prop = (e.params as { missingProperty?: string; additionalProperty?: string }).missingProperty ??
    (e.params as { additionalProperty?: string }).additionalProperty;
  const full = prop ? (path ? `${path}.${prop}` : prop) : path;
  return full === '' ? '(top level)' : full;
}

function explain(e: ErrorObject): string {
  if (e.keyword === 'not') return 'sets both apiKey and apiKeyEnv; give one of them';
  if (e.keyword === 'additionalProperties') return 'is not a known field';
  if (e.keyword === 'required') return 'is required';
  return e.message ?? 'is invalid';
}

/** Reads and checks `$home/config.json`; a missing file means no services. */
export function readHomeConfig(home: string): { file: string; config: HomeConfigFile } {
  const file = join(home, HOME_CONFIG_FILE);
  if (!existsSync(file)) return { file, config: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ModelConfigError(`${file} is not valid JSON: ${(err as Error).message}`);
  }
  const validateFile = fileValidator();
  if (!validateFile(parsed)) {
    const e = validateFile.errors![0]!;
    throw new ModelConfigError(`${file}: ${fieldOf(e)} ${explain(e)}`);
  }
  return { file, config: parsed };
}

function envService(env: NodeJS.ProcessEnv): ModelServiceSpec | undefined {
  const value = (name: string) => (env[name] && env[name]!.trim() !== '' ? env[name]!.trim() : undefined);
  const baseUrl = value('OPENAI_BASE_URL');
  const apiKey = value('OPENAI_API_KEY');
  if (baseUrl === undefined && apiKey === undefined) return undefined;
  const model = value('OPENAI_MODEL');
  return {
    id: ENV_SERVICE_ID,
    baseUrl: baseUrl ?? OPENAI_DEFAULT_BASE_URL,
    ...(apiKey !== undefined && { apiKey }),
    ...(model !== undefined && { defaultModel: model }),
  };
}

/**
 * The services of this daemon, the default first: the file's
 * `defaultModelService` when set, else the OPENAI_* service when the env
 * defines one (it is the more specific choice), else the file's order.
 */
export function loadModelServices(home: string, env: NodeJS.ProcessEnv): ModelServiceSpec[] {
  const { file, config } = readHomeConfig(home);
  const fromFile: ModelServiceSpec[] = (config.modelServices ?? []).map((s, i) => {
    const { apiKeyEnv, ...rest } = s;
    if (apiKeyEnv === undefined) return rest;
    const key = env[apiKeyEnv];
    if (key === undefined || key.trim() === '') {
      throw new ModelConfigError(`${file}: modelServices[${i}].apiKeyEnv names ${apiKeyEnv}, which is not set`);
    }
    return { ...rest, apiKey: key.trim() };
  });
  fromFile.forEach((s, i) => {
    if (s.id === ENV_SERVICE_ID) {
      throw new ModelConfigError(`${file}: modelServices[${i}].id "${ENV_SERVICE_ID}" is reserved for the OPENAI_* environment service`);
    }
  });
  const fromEnv = envService(env);
  const all = fromEnv ? [fromEnv, ...fromFile] : fromFile;
  checkModelServices(all, file);
  const preferred = config.defaultModelService;
  if (preferred === undefined) return all;
  const chosen = all.find((s) => s.id === preferred);
  if (!chosen) throw new ModelConfigError(`${file}: defaultModelService "${preferred}" is not the id of a model service`);
  return [chosen, ...all.filter((s) => s !== chosen)];
}

/** Rules a schema cannot say: unique ids, a default model among the listed ones. Also checks services given directly. */
export function checkModelServices(services: readonly ModelServiceSpec[], where: string): void {
  const seen = new Set<string>();
  services.forEach((s, i) => {
    const at = `${where}: modelServices[${i}]`;
    if (!new RegExp(SERVICE_ID_PATTERN).test(s.id)) throw new ModelConfigError(`${at}.id must match ${SERVICE_ID_PATTERN}`);
    if (seen.has(s.id)) throw new ModelConfigError(`${at}.id "${s.id}" is used by two services`);
    seen.add(s.id);
    if (!/^https?:\/\/\S+$/.test(s.baseUrl)) throw new ModelConfigError(`${at}.baseUrl must be an http(s) URL`);
    const ids = s.models?.map((m) => m.id);
    if (ids && new Set(ids).size !== ids.length) throw new ModelConfigError(`${at}.models lists a model id twice`);
    if (s.defaultModel !== undefined && ids && ids.length > 0 && !ids.includes(s.defaultModel)) {
      throw new ModelConfigError(`${at}.defaultModel "${s.defaultModel}" is not among its models`);
    }
  });
}
